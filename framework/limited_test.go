package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// A hook's refusal with flows.CodeLimited reaches the client as a refusal
// with flows.CodeAborted does: the same JSON-RPC code (CodeRefused) in a
// flow that answers with protocol errors, an isError result with the
// cause's text for a tool call. Only observers tell the two apart.
func TestLimitedIsARefusalOnTheWire(t *testing.T) {
	ctx := context.Background()
	refusals := []struct {
		name string
		err  func(c *flows.Context) error
	}{
		{"aborted", func(*flows.Context) error { return errors.New("over quota") }},
		{"limited", func(c *flows.Context) error {
			return &flows.Error{Code: flows.CodeLimited, Flow: c.Flow(), Stage: c.Stage(), Err: errors.New("over quota")}
		}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "limited", Version: "v1"}, nil)
			must(t, framework.AddToolFunc(srv, &mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
				}))
			for _, flow := range []flows.ID{flows.ToolsCallTool, flows.PromptsListPrompts} {
				must(t, srv.Hook(flows.Hook{Flow: flow, Stage: stages.BeforeValidation, Name: "quota", Fn: tt.err}))
			}
			cs := inMemory("")(t, srv, nil)

			_, err := cs.ListPrompts(ctx, nil)
			wantProtocolError(t, err, framework.CodeRefused, "over quota")

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if !res.IsError || len(res.Content) != 1 {
				t.Fatalf("tools/call: want one isError content, got %+v", res)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "over quota" {
				t.Errorf("tools/call: text = %+v, want %q", res.Content[0], "over quota")
			}
		})
	}
}
