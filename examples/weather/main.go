// Command weather is the server of docs/own-module.md: one tool with one
// embedded hook, served on stdio, that traces every hook call and step to
// stderr. Copied into a module of your own, it is where a new hookflow
// server starts.
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
