package main

//go:generate go tool hookgen

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

func main() {
	srv, err := newServer(os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// newServer builds the server. Its observer writes one line to trace for
// every hook call and step of every run.
func newServer(trace io.Writer) (*framework.Server, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "0.1.0"}, &framework.Options{
		Observer: func(ev *flows.Event) {
			what := ev.Stage.String() + " " + ev.Hook
			if ev.Hook == "" {
				what = "(" + ev.Step + ")" // the flow's own validate or execute step
			}
			fmt.Fprintf(trace, "%-18s %-7s %s\n", ev.Flow, ev.Outcome, what)
		},
	})
	return srv, RegisterHookflow(srv)
}
