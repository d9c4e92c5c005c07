package framework_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// texts returns the text of every content block of res.
func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		} else {
			out = append(out, "(non-text)")
		}
	}
	return out
}

func TestAddContext(t *testing.T) {
	cached := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"echo":"from the cache"}`}}}
	tests := []struct {
		name      string
		args      map[string]any
		wantError bool
		want      []string
	}{
		{name: "success", args: map[string]any{"text": "hi"}, want: []string{`{"echo":"hi"}`, "note: before", "note: after"}},
		{name: "blocked", args: map[string]any{"text": "block"}, wantError: true, want: []string{"blocked by test", "note: before"}},
		{name: "tool failure", args: map[string]any{"text": "fail"}, wantError: true, want: []string{"tool failed", "note: before", "note: failed"}},
		// The cached answer is a value the hook keeps: its content must
		// not grow from call to call.
		{name: "early answer, first", args: map[string]any{"text": "cached"}, want: []string{`{"echo":"from the cache"}`, "note: before", "note: after"}},
		{name: "early answer, second", args: map[string]any{"text": "cached"}, want: []string{`{"echo":"from the cache"}`, "note: before", "note: after"}},
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "addcontext", Version: "1"}, nil)
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (echoOut, error) {
		if in.Text == "fail" {
			return echoOut{}, errors.New("tool failed")
		}
		return echoOut{Echo: in.Text}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	input := func(c *flows.Context) string { return flows.As[flows.ToolCall[echoIn, echoOut]](c).Input().Text }
	err = srv.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "before", Fn: func(c *flows.Context) error {
			if err := framework.AddContext(c, "note: before"); err != nil {
				return err
			}
			switch input(c) {
			case "block":
				return errors.New("blocked by test")
			case "cached":
				c.Respond(cached)
			}
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "after", Fn: func(c *flows.Context) error {
			return framework.AddContext(c, "note: after")
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.OnError, Name: "failed", Fn: func(c *flows.Context) error {
			if input(c) == "fail" {
				return framework.AddContext(c, "note: failed")
			}
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "empty", Fn: func(c *flows.Context) error {
			return framework.AddContext(c, "") // adds nothing
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("isError = %v, want %v", res.IsError, tt.wantError)
			}
			if got := texts(res); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			if !tt.wantError && tt.args["text"] == "hi" {
				if sc, _ := res.StructuredContent.(map[string]any); sc["echo"] != "hi" || len(sc) != 1 {
					t.Errorf("structuredContent = %v, want {echo: hi} untouched", res.StructuredContent)
				}
			}
		})
	}
}

func TestAddContextOutsideToolCall(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "addcontext", Version: "1"}, nil)
	got := make(chan error, 1)
	err := srv.Hook(flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: "list", Fn: func(c *flows.Context) error {
		got <- framework.AddContext(c, "text")
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) {
		return echoOut{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	err = wait(t, got, "the list hook")
	if flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), "only a tools:call-tool run") {
		t.Errorf("AddContext in tools:list-tools = %v, want a CodeInvalid error", err)
	}
}
