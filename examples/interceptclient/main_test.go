package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Example is the demo: a secret redacted on its way out, a forbidden
// call blocked before it is sent.
func Example() {
	if err := runDemo(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// == a message holding a secret is redacted before it leaves: send_message {"to":"ops","body":"deploy with sk_live_example123 now"}
	//   result: sent to ops
	//   upstream received: {"to":"ops","body":"deploy with [redacted] now"}
	//   decision: local:redact-secrets mutation request modified
	//   decision: local:no-secrets-out validation request allowed
	//   decision: local:forbidden-tools validation request allowed
	// == a forbidden tool is never called: delete_repo {"repo":"hookflow"}
	//   blocked: the request was blocked by an interceptor (local:forbidden-tools): tool "delete_repo" is forbidden
	//   upstream received: nothing
	//   decision: local:redact-secrets mutation request unchanged
	//   decision: local:no-secrets-out validation request allowed
	//   decision: local:forbidden-tools validation request blocked
}

// The order is what lets the call through: sent, the request is redacted
// before the secret check sees it; in the order of data received
// (validate, then mutate) the same interceptors block it.
func TestSendingOrderLetsTheRedactedCallThrough(t *testing.T) {
	ch, err := newChain(context.Background(), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	payload := json.RawMessage(`{"method":"tools/call","params":{"name":"send_message","arguments":{"to":"ops","body":"use ghp_example456"}}}`)
	tests := []struct {
		dir       intercept.Direction
		blocked   bool
		wantFinal string
	}{
		{intercept.Send, false, "use [redacted]"},
		{intercept.Receive, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.dir.String(), func(t *testing.T) {
			p, err := ch.Run(context.Background(), tt.dir, intercept.Call{Event: "tools/call", Phase: wire.Request, Payload: payload})
			var blocked *intercept.BlockedError
			if got := errors.As(err, &blocked); got != tt.blocked {
				t.Fatalf("blocked: %v (%v), want %v", got, err, tt.blocked)
			}
			if tt.blocked {
				if blocked.Interceptor != "local:no-secrets-out" {
					t.Errorf("blocked by %s, want local:no-secrets-out", blocked.Interceptor)
				}
				return
			}
			if !strings.Contains(string(p.Payload), tt.wantFinal) || strings.Contains(string(p.Payload), "ghp_") {
				t.Errorf("sent %s, want the body %q", p.Payload, tt.wantFinal)
			}
		})
	}
}

// The middleware replaces the request the SDK sends, not the caller's
// params: the caller's arguments keep the secret, the upstream gets it
// redacted.
func TestCallersParamsAreNotChanged(t *testing.T) {
	ch, err := newChain(context.Background(), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	up := &upstream{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := up.server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := newClient(ch).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "send_message", Arguments: map[string]any{"to": "ops", "body": "AKIAEXAMPLE789"}}
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if got := params.Arguments.(map[string]any)["body"]; got != "AKIAEXAMPLE789" {
		t.Errorf("the caller's body is now %q", got)
	}
	if got := up.take(); len(got) != 1 || got[0] != `{"to":"ops","body":"[redacted]"}` {
		t.Errorf("the upstream received %q", got)
	}
}
