package framework_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// hideSecrets is a plugin that hides every entity whose name or URI
// contains "secret": the Visibility capability.
type hideSecrets struct{}

func (hideSecrets) Name() string                          { return "hide-secrets" }
func (hideSecrets) Attach(*framework.PluginContext) error { return nil }
func (hideSecrets) Visible(_ *flows.Request, e *flows.Entity) framework.Sight {
	if strings.Contains(e.Name, "secret") {
		return framework.Hidden
	}
	return framework.Shown
}

// A plugin that implements Visibility hides entities from lists, before
// pagination, and from calls, gets and reads, which fail as for a name the
// server does not know; the lists are then private to the caller.
func TestVisibilityHidesFromListsAndCalls(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			srv := framework.NewServer(&mcp.Implementation{Name: "lists", Version: "1"}, nil)
			addEntities(t, srv)
			var secretCalls atomic.Int32
			read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "s"}}}, nil
			}
			err := errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "secret_tool"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (echoOut, error) {
					secretCalls.Add(1)
					return echoOut{Echo: "leaked"}, nil
				}),
				framework.AddPromptFunc(srv, &mcp.Prompt{Name: "secret_prompt"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
				}),
				framework.AddResourceFunc(srv, &mcp.Resource{URI: "test://secret", Name: "s"}, nil, read),
				framework.AddResourceFunc(srv, nil, &mcp.ResourceTemplate{URITemplate: "test://secret/{id}", Name: "st"}, read),
				srv.Use(hideSecrets{}),
			)
			if err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, srv, nil)

			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(tools.Tools, func(t *mcp.Tool) string { return t.Name }); !equal(got, []string{"echo"}) {
				t.Errorf("tools = %v, want [echo]", got)
			}
			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(prompts.Prompts, func(p *mcp.Prompt) string { return p.Name }); !equal(got, []string{"greet"}) {
				t.Errorf("prompts = %v, want [greet]", got)
			}
			resources, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(resources.Resources, func(r *mcp.Resource) string { return r.URI }); !equal(got, []string{"test://static"}) {
				t.Errorf("resources = %v, want [test://static]", got)
			}
			templates, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(templates.ResourceTemplates, func(r *mcp.ResourceTemplate) string { return r.URITemplate }); !equal(got, []string{"test://items/{id}"}) {
				t.Errorf("templates = %v, want [test://items/{id}]", got)
			}

			for _, cache := range []string{tools.CacheScope, prompts.CacheScope, resources.CacheScope, templates.CacheScope} {
				if cache == "public" {
					t.Errorf("a list that depends on the caller has cacheScope %q", cache)
				}
			}

			// A hidden entity cannot be used: it looks exactly like one
			// that does not exist.
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret_tool"})
			wantProtocolError(t, err, -32602, `unknown tool "secret_tool"`)
			if n := secretCalls.Load(); n != 0 {
				t.Errorf("the hidden tool ran %d times", n)
			}
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "secret_prompt"})
			wantProtocolError(t, err, -32602, `unknown prompt "secret_prompt"`)
			for _, uri := range []string{"test://secret", "test://secret/{id}"} {
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
					t.Errorf("read %s: the hidden resource was read", uri)
				}
			}
			// The visible tool still can.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ok"}})
			if err != nil || res.IsError {
				t.Fatalf("echo: res=%+v err=%v", res, err)
			}
		})
	}
}

// List hooks rewrite what a list shows; they do not run for calls.
func TestListHooksRunOnlyForLists(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "lists", Version: "1"}, nil)
	addEntities(t, srv)
	rec := &recorder{}
	if err := srv.Hook(flows.On(stages.AfterExecute, func(l flows.List[*mcp.ListToolsResult]) error {
		rec.add("%s %d", l.Request().Method, len(l.Result().Tools))
		res := *l.Result()
		res.Tools = nil
		l.Respond(&res)
		return nil
	}).Named("see")); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 0 {
		t.Errorf("the list hook's rewrite was not sent: %d tools", len(tools.Tools))
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.take(), []string{"tools/list 1"}; !equal(got, want) {
		t.Errorf("list hook saw %v, want %v", got, want)
	}
}

func names[T any](list []T, name func(T) string) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, name(x))
	}
	return out
}
