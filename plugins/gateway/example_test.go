package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

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
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", Command: []string{upstreamBin}, Prefix: "up_"}}})
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

// ExampleGateways serves a gateway's readiness next to the server's
// MCP endpoint: 503 until the gateway has attached, 200 once its upstream
// is up.
func ExampleGateways() {
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", Command: []string{upstreamBin}}}})
	defer gw.Close()
	srv := framework.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	if err := srv.Use(gw); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/readyz", gateway.Gateways{gw})
	hs := httptest.NewServer(mux)
	defer hs.Close()

	ready := func() {
		res, err := http.Get(hs.URL + "/readyz")
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		var report struct {
			Status    string
			Upstreams []struct{ Name, State string }
		}
		if err := json.NewDecoder(res.Body).Decode(&report); err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.StatusCode, report.Status, report.Upstreams)
	}
	ready()
	// HTTPHandler starts the server: the gateway attaches.
	mcpHandler, err := srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	mux.Handle("/", mcpHandler)
	ready()
	// Output:
	// 503 starting [{up connecting}]
	// 200 up [{up up}]
}
