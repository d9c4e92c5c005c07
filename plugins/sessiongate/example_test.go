package sessiongate_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// A tool blocked until the model calls session_init, and what the model
// reads at each step.
func Example() {
	srv := framework.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	tool := func(name, text string) error {
		return framework.AddToolFunc(srv, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	gate := sessiongate.New(sessiongate.Config{
		Requires: []string{"save_note"},
		OnTransition: func(t sessiongate.Transition) {
			fmt.Println("transition:", t)
		},
	})
	if err := errors.Join(tool("session_init", "Session started."), tool("save_note", "Saved."), srv.Use(gate)); err != nil {
		panic(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, name := range []string{"save_note", "session_init", "save_note"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s (isError %v):\n", name, res.IsError)
		for _, c := range res.Content {
			fmt.Println("  " + c.(*mcp.TextContent).Text)
		}
	}
	// Output:
	// save_note (isError true):
	//   Tool "save_note" requires session initialization. You MUST call session_init first before using any other tools. This is a MANDATORY first action.
	// transition: session_init: uninitialized → initialized
	// transition: session_init: initialized → ready
	// session_init (isError false):
	//   Session started.
	//   The session is ready: you may now use the other tools.
	// transition: save_note: ready → working
	// save_note (isError false):
	//   Saved.
}
