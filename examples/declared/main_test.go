package main

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/agent"
)

// Example_demo is go run ./examples/declared -demo: what a host would
// inject at each event of a session.
func Example_demo() {
	if err := runDemo(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// approve memory#0: session_start important
	// approve memory#1: post_tool_use {"tool_name":"Bash","input_contains":"git commit"} suggestion
	// approve memory#2: pre_tool_use {"tool_name":"Bash","input_contains":"push --force"} important (declared required)
	// approve memory#3: post_request suggestion
	// approve memory#4: session_end suggestion
	// approve memory#5: pre_tool_use {"tool_name":"store_memory"} suggestion
	//
	// == session_start
	//    inject memory#0 [important]: Memories about "shop":
	//       - Prices are integers in cents, never floats.
	//       - The CI runs go test -race; the cart tests are slow, run them last.
	//
	// == pre_request
	//    (nothing to inject)
	//
	// == pre_tool_use Bash {"command":"go test ./cart/..."}
	//    (nothing to inject)
	//
	// == post_tool_use Bash {"command":"go test ./cart/..."}
	//    (nothing to inject)
	//
	// == pre_tool_use Bash {"command":"git push --force origin main"}
	//    inject memory#2 [important]: Never force-push a shared branch: ask the user first.
	//
	// == post_tool_use Bash {"command":"git commit -am \"cart: round prices in cents\""}
	//    inject memory#1 [suggestion]: You just committed work in shop. Before moving on: what did you learn that a future session would need? Store it with store_memory.
	//
	// == pre_tool_use mcp__memory__store_memory {"project":"shop","fact":"Rounding happens once, at checkout."}
	//    inject memory#5 [suggestion]: Store one fact per memory, in a sentence that stands on its own.
	//
	// == post_tool_use Bash {"command":"git commit -am \"cart: test rounding\""}
	//    left out: memory#1 post_tool_use suggestion cooled-down
	//    (nothing to inject)
	//
	// == post_request
	//    inject memory#3 [suggestion]: If this turn settled a decision or found a root cause, store it with store_memory.
	//
	// == session_end
	//    inject memory#4 [suggestion]: The session is ending: store what you learned before it closes.
}

// TestServeHTTP: over HTTP, a client that supports two events is sent the
// declarations of those events only, and a coding agent's hook (emit, as
// Claude Code runs it) gets the session-start memories through the server's
// context tool.
func TestServeHTTP(t *testing.T) {
	srv, err := newServer(seeded())
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()

	ctx := context.Background()
	caps := declared.DeclareSupport(nil, declared.SessionStart, declared.SessionEnd)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	decls, _, ok := declared.ServerDeclarations(cs.InitializeResult().Capabilities)
	if !ok || len(decls) != 2 || decls[0].Event != declared.SessionStart || decls[1].Event != declared.SessionEnd {
		t.Fatalf("declarations sent: %+v", decls)
	}

	var out strings.Builder
	in := `{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`
	if err := agent.Emit(ctx, agent.EmitConfig{Agent: agent.Claude, Server: hs.URL}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[memory · important] Memories about \"shop\":\n- Prices are integers in cents, never floats.\n- The CI runs go test -race; the cart tests are slow, run them last."}}`
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("emit:\n got %s\nwant %s", got, want)
	}
}
