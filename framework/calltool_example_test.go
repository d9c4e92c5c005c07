package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// PathIn is the input of the write and policy tools.
type PathIn struct {
	Path string `json:"path"`
}

// A plugin's hook consults another tool of its server before a call runs:
// the policy tool's own flow runs (here, a hook that logs it), for the
// same client, and its answer decides the write.
func ExampleServer_CallTool() {
	srv := framework.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	policy := func(ctx context.Context, req *mcp.CallToolRequest, in PathIn) (*mcp.CallToolResult, error) {
		verdict := "allow"
		if in.Path == "/etc/passwd" {
			verdict = "deny"
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: verdict}}}, nil
	}
	write := func(ctx context.Context, req *mcp.CallToolRequest, in PathIn) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Path}}}, nil
	}
	guard := framework.NewPlugin("guard", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "ask-policy", Fn: func(c *flows.Context) error {
				if c.Entity().Name != "write" {
					return nil
				}
				res, err := p.Server.CallTool(c.Context(), c, "policy", c.Arguments())
				if err != nil {
					return err
				}
				if text := res.Content[0].(*mcp.TextContent).Text; text != "allow" {
					return c.Abort(errors.New("the policy says " + text))
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "log", Fn: func(c *flows.Context) error {
				fmt.Printf("ran %s for %s\n", c.Entity().Name, c.Request().ClientInfo.Name)
				return nil
			}})
	})
	err := errors.Join(
		srv.Use(guard),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "policy"}, policy),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "write"}, write),
	)
	if err != nil {
		log.Fatal(err)
	}
	cs := connectExample(srv)
	defer cs.Close()

	ctx := context.Background()
	for _, path := range []string{"/tmp/notes", "/etc/passwd"} {
		printResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": path}}))
	}
	_, err = srv.CallTool(ctx, nil, "rm", json.RawMessage(`{}`))
	fmt.Println("unknown:", err)
	// Output:
	// ran policy for example-client
	// ran write for example-client
	// result: wrote /tmp/notes
	// ran policy for example-client
	// isError: the policy says deny
	// unknown: unknown tool "rm"
}
