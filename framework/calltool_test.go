package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

type chainKey struct{}

// TestCallTool calls tools of the server from a hook: the callee's flow
// runs under the caller's context, as a request of its own of the same
// session; a hidden or unknown tool is a protocol error, and a callee's
// block is an isError result.
func TestCallTool(t *testing.T) {
	for _, tc := range []struct {
		name, callee, args string
		want               string // the callee's text, "isError: …" or "error: …"
	}{
		{"echo", "echo", `{"path":"a"}`, "a via=hook"},
		{"blocked by its hook", "echo", `{"path":"blocked"}`, "isError: blocked path"},
		{"invalid arguments", "echo", `{"path":1}`, "isError: validating"},
		{"hidden", "admin_echo", `{"path":"a"}`, `error: unknown tool "admin_echo"`},
		{"unknown", "nope", `{}`, `error: unknown tool "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			var got string
			var ids []string
			plugin := framework.NewPlugin("p", func(p *framework.PluginContext) error {
				return p.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "h", Fn: func(c *flows.Context) error {
					ids = append(ids, c.Request().ID)
					if c.Entity().Name != "outer" {
						if c.Context().Value(chainKey{}) != "hook" {
							return c.Abort(errors.New("the caller's context is lost"))
						}
						if strings.Contains(string(c.Arguments()), "blocked") {
							return c.Abort(errors.New("blocked path"))
						}
						return nil
					}
					res, err := p.Server.CallTool(context.WithValue(c.Context(), chainKey{}, "hook"), c, tc.callee, json.RawMessage(tc.args))
					switch {
					case err != nil:
						got = "error: " + err.Error()
					case res.IsError:
						got = "isError: " + res.Content[0].(*mcp.TextContent).Text
					default:
						got = res.Content[0].(*mcp.TextContent).Text
					}
					return nil
				}})
			})
			echo := func(ctx context.Context, req *mcp.CallToolRequest, in PathIn) (*mcp.CallToolResult, error) {
				via, _ := ctx.Value(chainKey{}).(string)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Path + " via=" + via}}}, nil
			}
			err := errors.Join(srv.Use(plugin, hideAdmin{}),
				framework.AddToolFunc(srv, &mcp.Tool{Name: "outer"}, echo),
				framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, echo),
				framework.AddToolFunc(srv, &mcp.Tool{Name: "admin_echo"}, echo))
			if err != nil {
				t.Fatal(err)
			}
			cs := connectTest(t, srv)
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "outer", Arguments: map[string]any{"path": "x"}}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("the callee answered %q, want %q…", got, tc.want)
			}
			if len(ids) == 2 && ids[0] == ids[1] {
				t.Errorf("the inner call has the outer call's request ID %s", ids[0])
			}
		})
	}
}

func connectTest(t *testing.T, srv *framework.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
