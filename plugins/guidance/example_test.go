package guidance_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// The registry, loader and composer on their own: register hooks, query
// those of the session's start, compose them.
func Example() {
	// In a real server the files are an embed.FS next to the Go file.
	files := fstest.MapFS{
		"init-required.md": {Data: []byte("You must call `session_init` before using any other tools.\n")},
		"tips.md":          {Data: []byte("Consider enabling debug mode.\n")},
	}
	reg, err := guidance.NewRegistry("my-server")
	if err != nil {
		panic(err)
	}
	err = reg.Register(
		guidance.Hook{Tag: "tips", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Optional Tips", Level: guidance.May, Priority: 30, FS: files},
		guidance.Hook{Tag: "init-required", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Initialization Required", Level: guidance.Must, Priority: 100, FS: files},
		guidance.Hook{Tag: "sampling", Type: guidance.TypeSession, Lifecycle: guidance.Start, Level: guidance.Should, FS: files,
			Conditions: guidance.Conditions{Features: []guidance.Feature{guidance.Sampling}}},
	)
	if err != nil {
		panic(err)
	}
	var loader guidance.Loader
	res := guidance.Composer{}.Compose(guidance.Env{}, reg.Query(guidance.Query{Type: guidance.TypeSession, Lifecycle: guidance.Start}), &loader)
	fmt.Println(res.Content)
	fmt.Println()
	fmt.Println(res.Notices)
	// Output:
	// > The following sections use requirement levels defined in [RFC 2119](https://www.rfc-editor.org/rfc/rfc2119).
	//
	// ## MUST
	//
	// These are absolute requirements. You must follow these instructions.
	//
	// ### Initialization Required
	//
	// You must call `session_init` before using any other tools.
	//
	// ---
	//
	// ## MAY
	//
	// These are optional. Use your judgment.
	//
	// ### Optional Tips
	//
	// Consider enabling debug mode.
	//
	// [1 hook was skipped (conditions not met): sampling (requires features: sampling).]
}

// The plugin on a server: session guidance in the instructions, a tool's
// end guidance in its result.
func ExampleNew() {
	p := guidance.New(guidance.Config{App: "notes", Hooks: []guidance.Hook{
		{Tag: "init", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Start here", Level: guidance.Must,
			Content: "Call `list_notes` before writing a note."},
		{Tag: "list-end", Type: guidance.TypeAction, Lifecycle: guidance.End, Name: "Next", Level: guidance.Should,
			On: guidance.Tool("list_notes"), Content: "Ask the user which note to open."},
	}})
	srv := framework.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "list_notes"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "groceries, todo"}}}, nil
	}); err != nil {
		panic(err)
	}
	if err := srv.Use(p); err != nil {
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

	fmt.Println(cs.InitializeResult().Instructions)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{}})
	if err != nil {
		panic(err)
	}
	for i, c := range res.Content {
		fmt.Printf("--- content %d:\n%s\n", i, c.(*mcp.TextContent).Text)
	}
	// Output:
	// > The following sections use requirement levels defined in [RFC 2119](https://www.rfc-editor.org/rfc/rfc2119).
	//
	// ## MUST
	//
	// These are absolute requirements. You must follow these instructions.
	//
	// ### Start here
	//
	// Call `list_notes` before writing a note.
	// --- content 0:
	// groceries, todo
	// --- content 1:
	// > The following sections use requirement levels defined in [RFC 2119](https://www.rfc-editor.org/rfc/rfc2119).
	//
	// ## SHOULD
	//
	// These are recommended actions. Follow unless you have good reason not to.
	//
	// ### Next
	//
	// Ask the user which note to open.
}
