package console_test

import (
	"context"
	"errors"
	"html"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/console"
)

// A call of an unknown tool, prompt or resource, which no flow runs,
// shows as a blocked run of its flow, with the reason the client read.
func TestUnknownEntityRun(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{})
	cs := h.Session().Client()
	ctx := context.Background()
	_, toolErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{"password": "pw-unknown-0001"}})
	_, promptErr := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no_such_prompt"})
	_, resErr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///no/such/resource"})
	for _, tc := range []struct {
		entity, flow string
		err          error
	}{
		{"no_such_tool", "tools:call-tool", toolErr},
		{"no_such_prompt", "prompts:get-prompt", promptErr},
		{"file:///no/such/resource", "resources:read-resource", resErr},
	} {
		if tc.err == nil {
			t.Fatalf("%s: no error", tc.entity)
		}
		list := waitFor(t, ts, "/console/?flow="+tc.flow, html.EscapeString(tc.entity))
		links := runLinks(list)
		if len(links) != 1 {
			t.Fatalf("%s: %d runs, want 1:\n%s", tc.entity, len(links), list)
		}
		_, run := get(t, ts, links[0])
		for _, want := range []string{`>blocked</span>`, framework.RefusedBy, html.EscapeString(wire(t, tc.err))} {
			if !strings.Contains(run, want) {
				t.Errorf("%s: the run page lacks %q:\n%s", tc.entity, want, run)
			}
		}
		if strings.Contains(run, "pw-unknown-0001") {
			t.Errorf("%s: the run page shows the password", tc.entity)
		}
	}
}

// wire returns the message of the JSON-RPC error err carries.
func wire(t *testing.T, err error) string {
	t.Helper()
	var w *jsonrpc.Error
	if !errors.As(err, &w) {
		t.Fatalf("%v is not a JSON-RPC error", err)
	}
	return w.Message
}
