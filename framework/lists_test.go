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

// without returns the items of list for which hidden is false, in a new
// slice: list results hold the SDK's registered pointers, which a hook must
// not modify.
func without[T any](list []T, hidden func(T) bool) []T {
	out := make([]T, 0, len(list))
	for _, x := range list {
		if !hidden(x) {
			out = append(out, x)
		}
	}
	return out
}

// filteringHooks hide everything whose name or URI contains "secret" from
// the four lists.
func filteringHooks() []flows.Hook {
	secret := func(s string) bool { return strings.Contains(s, "secret") }
	return []flows.Hook{
		{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: "hide", Fn: func(c *flows.Context) error {
			l := flows.As[flows.List[*mcp.ListToolsResult]](c)
			res := *l.Result()
			res.Tools = without(res.Tools, func(t *mcp.Tool) bool { return secret(t.Name) })
			l.Respond(&res)
			return nil
		}},
		{Flow: flows.PromptsListPrompts, Stage: stages.AfterExecute, Name: "hide", Fn: func(c *flows.Context) error {
			l := flows.As[flows.List[*mcp.ListPromptsResult]](c)
			res := *l.Result()
			res.Prompts = without(res.Prompts, func(p *mcp.Prompt) bool { return secret(p.Name) })
			l.Respond(&res)
			return nil
		}},
		{Flow: flows.ResourcesListResources, Stage: stages.AfterExecute, Name: "hide", Fn: func(c *flows.Context) error {
			l := flows.As[flows.List[*mcp.ListResourcesResult]](c)
			res := *l.Result()
			res.Resources = without(res.Resources, func(r *mcp.Resource) bool { return secret(r.URI) })
			l.Respond(&res)
			return nil
		}},
		{Flow: flows.ResourcesListResourceTemplates, Stage: stages.AfterExecute, Name: "hide", Fn: func(c *flows.Context) error {
			l := flows.As[flows.List[*mcp.ListResourceTemplatesResult]](c)
			res := *l.Result()
			res.ResourceTemplates = without(res.ResourceTemplates, func(r *mcp.ResourceTemplate) bool { return secret(r.URITemplate) })
			l.Respond(&res)
			return nil
		}},
	}
}

func TestListHooksFilterWhatTheClientSees(t *testing.T) {
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
				srv.Hook(filteringHooks()...),
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

			// A tool a list hook hides cannot be called: it looks exactly
			// like a tool that does not exist.
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret_tool"})
			wantProtocolError(t, err, -32602, `unknown tool "secret_tool"`)
			if n := secretCalls.Load(); n != 0 {
				t.Errorf("the hidden tool ran %d times", n)
			}
			// The visible tool still can.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ok"}})
			if err != nil || res.IsError {
				t.Fatalf("echo: res=%+v err=%v", res, err)
			}
		})
	}
}

// TestListHookSeesVisibilityCheck checks that the tools:list-tools hooks run
// for the visibility check of a call, and can tell it from a listing by the
// request's method.
func TestListHookSeesVisibilityCheck(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "lists", Version: "1"}, nil)
	addEntities(t, srv)
	rec := &recorder{}
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: "see", Fn: func(c *flows.Context) error {
		res := flows.As[flows.List[*mcp.ListToolsResult]](c).Result()
		rec.add("%s %d", c.Request().Method, len(res.Tools))
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.take(), []string{"tools/list 1", "tools/call 1"}; !equal(got, want) {
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
