package gateway_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/stages"
)

// Example mounts an upstream server run over stdio into an app, with a
// prefix, and hooks its tools: the hook, attached to the app, runs for
// the mounted entities only and reads which upstream serves them.
func Example() {
	gw := gateway.New(gateway.Upstream{Name: "up", Command: []string{upstreamBin}, Prefix: "up_"})
	defer gw.Close()
	srv := framework.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	app, err := srv.App("upstreams")
	if err != nil {
		log.Fatal(err)
	}
	if err := app.Use(gw); err != nil {
		log.Fatal(err)
	}
	err = app.Hook(flows.On(stages.BeforeExecute, func(c flows.ToolCall[map[string]any, *mcp.CallToolResult]) error {
		m, _ := gateway.From(c.Context)
		fmt.Printf("calling %s on upstream %s (%s)\n", m.Name, m.Upstream, m.Health().State)
		return nil
	}))
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"hello": "world"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// calling echo on upstream up (up)
	// {"hello":"world"}
}
