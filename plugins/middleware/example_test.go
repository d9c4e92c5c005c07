package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/middleware"
)

// The onion: request handlers run head to tail, result and error handlers
// tail to head, only for the middlewares that saw the request; an error
// handler recovers with a result, after which the rest of the way out runs
// result handlers.
func Example() {
	var trace []string
	mw := func(name string) middleware.Middleware {
		return middleware.Middleware{Name: name, Flows: []middleware.Handlers{{
			Flow: flows.ToolsCallTool,
			Request: func(c *flows.Context) (middleware.Action, error) {
				trace = append(trace, name+" request")
				if text(c) == "fail at "+name {
					return middleware.Action{}, errors.New(name + " refused")
				}
				return middleware.Continue(), nil
			},
			Result: func(c *flows.Context) error {
				trace = append(trace, name+" result")
				return nil
			},
			Error: func(c *flows.Context, err error) (any, error) {
				trace = append(trace, name+" error: "+flows.Reason(err))
				if name == "b" {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "recovered by b"}}}, nil
				}
				return nil, err
			},
		}}}
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "shop"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, error) {
		trace = append(trace, "execute")
		if in.Text == "tool fails" {
			return nil, errors.New("tool failed")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
	})
	_ = srv.Use(middleware.New(middleware.Config{Chain: []middleware.Middleware{mw("a"), mw("b"), mw("c")}}))

	st, ct := mcp.NewInMemoryTransports()
	_, _ = srv.Connect(context.Background(), st, nil)
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), ct, nil)
	defer cs.Close()
	for _, arg := range []string{"hello", "fail at c", "tool fails"} {
		trace = nil
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": arg}})
		fmt.Printf("%s: %s → %s\n", arg, strings.Join(trace, ", "), res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// hello: a request, b request, c request, execute, c result, b result, a result → hello
	// fail at c: a request, b request, c request, b error: c refused, a result → recovered by b
	// tool fails: a request, b request, c request, execute, c error: tool failed, b error: tool failed, a result → recovered by b
}

// In is the echo tool's input.
type In struct {
	Text string `json:"text"`
}

// text returns the text argument of a call, from its typed input.
func text(c *flows.Context) string {
	if in, ok := c.Input().(*In); ok {
		return in.Text
	}
	return ""
}
