package client_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// A host fires its events; a trusted server's declarations say what to
// inject, its required one downgraded to important.
func Example() {
	ctx := context.Background()

	// The server: a reminder after commits, a rule before any Bash call.
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	_ = srv.Use(declared.New(declared.Config{Declarations: []declared.Declaration{
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"},
			Context: "You just committed in {project_name}: store what you learned.", Priority: declared.Suggestion},
		{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"},
			Context: "Never push to main.", Priority: declared.Required},
	}}))
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}

	// The host.
	caps := declared.DeclareSupport(nil, declared.PreToolUse, declared.PostToolUse)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	hooks, err := client.New(client.Config{
		Project: "shop",
		Trust:   map[string]client.Trust{"memory": client.Trusted},
		Audit:   func(r client.Record) { fmt.Println("audit:", r) },
	})
	if err != nil {
		panic(err)
	}
	if err := hooks.Add(ctx, "memory", cs); err != nil {
		panic(err)
	}

	commit := &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"git commit -m wip"}`)}
	for _, ev := range []declared.Event{declared.PreToolUse, declared.PostToolUse} {
		for _, in := range hooks.Fire(ctx, client.Firing{Event: ev, Tool: commit}) {
			fmt.Printf("inject at %s (%s): %s\n", ev, in.Priority, in.Text)
		}
	}
	// Output:
	// audit: memory#0 post_tool_use suggestion accepted
	// audit: memory#1 pre_tool_use important (declared required) accepted
	// audit: memory#1 pre_tool_use important (declared required) injected 19B
	// inject at pre_tool_use (important): Never push to main.
	// audit: memory#0 post_tool_use suggestion injected 51B
	// inject at post_tool_use (suggestion): You just committed in shop: store what you learned.
}
