package slowcalls_test

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/examples/slowcalls"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
)

type invoiceIn struct {
	ID string `json:"id"`
}

type invoiceOut struct {
	Cents int `json:"cents"`
}

func invoice(ctx context.Context, req *mcp.CallToolRequest, in invoiceIn) (invoiceOut, error) {
	return invoiceOut{Cents: 1200}, nil
}

// Example_attach adds one plugin to the whole server and another to one app.
func Example_attach() {
	// snippet:start attach
	srv := framework.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)

	// On the server: its hooks run for every tool, resource and prompt.
	aud := audit.New(audit.Config{})
	defer aud.Close(context.Background())
	if err := srv.Use(aud); err != nil {
		panic(err)
	}

	// On an app: its hooks run for that app's entities only.
	billing, err := srv.App("billing")
	if err != nil {
		panic(err)
	}
	if err := framework.AddToolFunc(billing, &mcp.Tool{Name: "invoice"}, invoice); err != nil {
		panic(err)
	}
	if err := billing.Use(slowcalls.New(slowcalls.Config{Threshold: 200 * time.Millisecond})); err != nil {
		panic(err)
	}

	// Attach runs here: a bad configuration fails now, not at the first call.
	if err := srv.Start(); err != nil {
		panic(err)
	}
	// snippet:end attach
	fmt.Println("started")
	// Output: started
}

// Example_badConfig shows the error a bad configuration gives at Start.
func Example_badConfig() {
	srv := framework.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	if err := srv.Use(slowcalls.New(slowcalls.Config{Threshold: -1})); err != nil {
		panic(err)
	}
	fmt.Println(srv.Start())
	// Output: hookflow: invalid: plugin "slowcalls" (shop/plugin:slowcalls): Config.Threshold: must not be negative, got -1ns
}
