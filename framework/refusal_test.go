package framework_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

// A request naming no entity of the server reaches the refusal readers
// once, with its flow, name, arguments and the error the client read; a
// request an entity's flow ran, even one that fails, does not.
func TestOnRefusal(t *testing.T) {
	var mu sync.Mutex
	var got []flows.Refusal
	reader := framework.NewPlugin("reader", func(pc *framework.PluginContext) error {
		return pc.OnRefusal(func(_ context.Context, r flows.Refusal) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r)
		})
	})
	setup := func(srv *framework.Server) error {
		read := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError("file:///docs/gone")
		}
		prompt := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("the prompt fails")
		}
		return errors.Join(
			plugintest.AddTools(srv, ""),
			framework.AddResourceFunc(srv, nil, &mcp.ResourceTemplate{Name: "docs", URITemplate: "file:///docs/{name}"}, read),
			framework.AddPromptFunc(srv, &mcp.Prompt{Name: "failing"}, prompt),
		)
	}
	srv := plugintest.NewServer(t, &plugintest.ServerOptions{Setup: setup, Plugins: []framework.Plugin{reader}})
	cs := plugintest.ConnectServer(t, srv)
	ctx := context.Background()
	var calls []refused
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{"a": 1}})
	calls = append(calls, refused{flows.ToolsCallTool, "nope", `{"a":1}`, err})
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope", Arguments: map[string]string{"b": "2"}})
	calls = append(calls, refused{flows.PromptsGetPrompt, "nope", `{"b":"2"}`, err})
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///elsewhere"})
	calls = append(calls, refused{flows.ResourcesReadResource, "file:///elsewhere", "", err})
	// The entities' own flows run these: no refusal.
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///docs/gone"}); err == nil {
		t.Error("the template's read did not fail")
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "failing"}); err == nil {
		t.Error("the failing prompt did not fail")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: plugintest.ToolFail, Arguments: plugintest.Text{Text: "x"}}); err != nil {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(calls) {
		t.Fatalf("%d refusals, want %d: %+v", len(got), len(calls), got)
	}
	for i, want := range calls {
		r := got[i]
		if want.err == nil {
			t.Fatalf("call %d did not fail", i)
		}
		if r.Flow != want.flow || r.Entity != want.entity || string(r.Args) != want.args || r.By != framework.RefusedBy || r.Request == nil || r.Request.ID == "" {
			t.Errorf("refusal %d = %+v, want flow %s, entity %q, args %s", i, r, want.flow, want.entity, want.args)
		}
		if r.Err == nil || !errors.Is(want.err, r.Err) && !containsErr(want.err, r.Err) {
			t.Errorf("refusal %d: error %v, the client read %v", i, r.Err, want.err)
		}
	}
}

// refused is a request the server should refuse: its flow, entity,
// arguments, and the error the client read.
type refused struct {
	flow   flows.ID
	entity string
	args   string
	err    error
}

// containsErr reports whether the client's error carries the message of
// the refusal's.
func containsErr(client, refusal error) bool {
	return len(refusal.Error()) > 0 && len(client.Error()) >= len(refusal.Error()) &&
		client.Error()[len(client.Error())-len(refusal.Error()):] == refusal.Error()
}
