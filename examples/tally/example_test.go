package tally_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/examples/tally"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

type in struct {
	Fail bool `json:"fail"`
}

func pay(ctx context.Context, req *mcp.CallToolRequest, a in) (string, error) {
	if a.Fail {
		return "", errors.New("declined")
	}
	return "paid", nil
}

// Example attaches the plugin hookgen generated from the directives of
// Tally, shows where its hook runs, and counts two calls, one failed.
func Example() {
	t := tally.New()
	srv := framework.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "pay"}, pay); err != nil {
		panic(err)
	}
	if err := srv.Use(tally.TallyPlugin(t)); err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	plan, err := srv.Explain(flows.ToolsCallTool, "pay")
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "tally") {
			fmt.Println(strings.TrimSpace(line))
		}
	}

	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, fail := range []bool{false, true} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"fail": fail}}); err != nil {
			panic(err)
		}
	}
	fmt.Println("calls:", t.Calls(), "failed:", t.Failed())
	// Output:
	// last  shop/plugin:tally/tools:call-tool/finally/Count
	// calls: map[pay:2] failed: map[pay:1]
}
