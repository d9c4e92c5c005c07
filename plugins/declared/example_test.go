package declared_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
)

// A server declares a reminder after git commits and a session-start
// context tool; a client that supports only post_tool_use is sent the
// reminder alone.
func Example() {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "recall", Description: "recall memories"}, recall)
	_ = srv.Use(declared.New(declared.Config{Declarations: []declared.Declaration{
		{
			Event:    declared.PostToolUse,
			Matcher:  &declared.Matcher{ToolName: "Bash", InputContains: "git commit"},
			Context:  "You just committed work in {project_name}: what did you learn?",
			Priority: declared.Suggestion,
		},
		{Event: declared.SessionStart, ContextTool: "recall", Priority: declared.Important},
	}}))

	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	caps := declared.DeclareSupport(nil, declared.PostToolUse)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	decls, _, _ := declared.ServerDeclarations(cs.InitializeResult().Capabilities)
	for _, d := range decls {
		fmt.Println(d.Event, d.Matcher.ToolName, d.Priority)
		fmt.Println(declared.Expand(d.Context, declared.Vars{ProjectName: "shop"}))
	}
	// Output:
	// post_tool_use Bash suggestion
	// You just committed work in shop: what did you learn?
}
