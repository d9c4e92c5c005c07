// Command quickstart is a small hookflow server: two tools, a resource and a
// prompt with embedded hooks, plus one plugin.
//
// The tools, resource and prompt are plain Go types in tools.go, declared with
// //mcp: and //hook: directives; go generate runs hookgen, which writes their
// registration code, RegisterHookflow, into hookgen_gen.go.
//
//	go run ./examples/quickstart -demo      # call the tools in-process and print each run's hooks
//	go run ./examples/quickstart            # serve on stdio
//	go run ./examples/quickstart -http :8080
package main

//go:generate go tool hookgen

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

func main() {
	demo := flag.Bool("demo", false, "connect an in-process client, call the tools and print every run's stages and hooks")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	flag.Parse()

	if *demo {
		if err := runDemo(context.Background(), os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	srv, err := newServer(nil, slog.New(slog.NewTextHandler(os.Stderr, nil)), nil)
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("quickstart: serving MCP on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}

// newServer builds the quickstart server. observer, when set, sees every
// hook call; report, when set, receives the outcome plugin's reports (else
// they go to logger).
func newServer(observer flows.Observer, logger *slog.Logger, report func(string)) (*framework.Server, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "quickstart", Version: "0.1.0"}, &framework.Options{
		Observer: observer,
		Logger:   logger,
	})
	if err := RegisterHookflow(srv); err != nil {
		return nil, err
	}
	if err := srv.Use(&outcomePlugin{report: report}); err != nil {
		return nil, err
	}
	return srv, srv.Start()
}

// runDemo calls the quickstart's tools from an in-process client and prints
// the trace of every run.
func runDemo(ctx context.Context, w io.Writer) error {
	var trace []string
	observer := func(ev *flows.Event) {
		what := ev.Hook
		if what == "" {
			what = "(" + ev.Step + ")"
		} else {
			what = ev.Stage.String() + " " + what
		}
		trace = append(trace, fmt.Sprintf("    %-8s %s", ev.Outcome, what))
	}
	report := func(msg string) { trace = append(trace, "  => "+msg) }
	srv, err := newServer(observer, slog.New(slog.DiscardHandler), report)
	if err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	calls := []struct {
		title string
		tool  string
		args  map[string]any
	}{
		{"a call that succeeds", "get_weather", map[string]any{"city": "  Paris"}},
		{"the same call again, answered early from the cache", "get_weather", map[string]any{"city": "Paris"}},
		{"a call blocked by a hook", "get_weather", map[string]any{"city": "Moon"}},
		{"a call whose tool fails", "get_weather", map[string]any{"city": "Atlantis"}},
		{"a call with invalid arguments", "add", map[string]any{"a": 1, "b": "two"}},
		{"a plain tool", "add", map[string]any{"a": 1, "b": 2}},
	}
	for _, call := range calls {
		trace = trace[:0]
		fmt.Fprintf(w, "== %s: %s %v\n", call.title, call.tool, call.args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		fmt.Fprintln(w, strings.Join(trace, "\n"))
		switch {
		case err != nil:
			fmt.Fprintf(w, "  protocol error: %v\n", err)
		case res.IsError:
			fmt.Fprintf(w, "  isError result: %s\n", text(res.Content))
		default:
			fmt.Fprintf(w, "  result: %s\n", text(res.Content))
		}
	}
	return nil
}

func text(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
