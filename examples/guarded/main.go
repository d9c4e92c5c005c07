package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/examples/guard/policy"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

func main() {
	demo := flag.Bool("demo", false, "start a guard in-process on loopback HTTP, call the tools and print what the interceptors did")
	guardURL := flag.String("guard", "", "the guard's streamable HTTP URL; its token is $GUARD_TOKEN")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	flag.Parse()
	if *demo {
		if err := runDemo(context.Background(), os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *guardURL == "" {
		log.Fatal(errors.New("guarded: -guard is required (or -demo)"))
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	g, err := newServer(intercept.Server{Name: "guard", URL: *guardURL, Token: os.Getenv("GUARD_TOKEN")}, logger, slog.NewJSONHandler(os.Stderr, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer g.close()
	if *addr == "" {
		if err := g.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := g.srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("guarded: serving MCP on http://%s", *addr)
	log.Fatal(framework.NewHTTPServer(*addr, h).ListenAndServe())
}

// guarded is the server and its plugins.
type guarded struct {
	srv       *framework.Server
	audit     *audit.Plugin
	intercept *intercept.Plugin
}

// newServer builds the server: its tools, the audit plugin writing to
// auditTo, and the intercept plugin running the interceptors of guard.
// The server is started: the guard is connected and listed.
func newServer(guard intercept.Server, logger *slog.Logger, auditTo slog.Handler) (*guarded, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "guarded", Version: "0.1.0"}, &framework.Options{Logger: logger})
	if err := addTools(srv); err != nil {
		return nil, err
	}
	g := &guarded{srv: srv, audit: audit.New(audit.Config{Handler: auditTo, Flows: []flows.ID{flows.ToolsCallTool}})}
	g.intercept = intercept.New(intercept.Config{Servers: []intercept.Server{guard}, Logger: logger})
	if err := srv.Use(g.audit, g.intercept); err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

func (g *guarded) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = g.audit.Close(ctx)
	_ = g.intercept.Close()
}

// startGuard serves the guard's interceptors on a loopback port, behind
// token, and returns its URL and a function that stops it.
func startGuard(token string) (string, func(), error) {
	h, err := host.Handler(host.Config{Interceptors: policy.HookflowInterceptors()},
		host.Serve{Implementation: &mcp.Implementation{Name: "guard"}, Verify: host.Token(token)})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := framework.NewHTTPServer("", h)
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

// runDemo starts a guard in-process and calls the tools through an
// in-memory client, printing each result and the interceptors' decisions
// from the audit event.
func runDemo(ctx context.Context, w io.Writer) error {
	url, stop, err := startGuard("demo-token")
	if err != nil {
		return err
	}
	defer stop()
	var events bytes.Buffer
	g, err := newServer(intercept.Server{Name: "guard", URL: url, Token: "demo-token"}, slog.New(slog.DiscardHandler), slog.NewJSONHandler(&events, nil))
	if err != nil {
		return err
	}
	defer g.close()
	fmt.Fprintln(w, "the interceptors of tools/call, in run order:")
	for _, st := range g.intercept.Plan() {
		if st.Flow == flows.ToolsCallTool {
			fmt.Fprintf(w, "  %-8s %s (%s)\n", st.Phase, st.Hook, st.Type)
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := g.srv.Connect(ctx, st, nil); err != nil {
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
		{"personal data in a request is redacted before the tool sees it", "send_mail", map[string]any{"to": "bob@example.com", "body": "call me on +44 20 7946 0958"}},
		{"a destructive command is refused", "run_command", map[string]any{"command": "rm -rf /"}},
		{"a harmless command goes through", "run_command", map[string]any{"command": "ls"}},
		{"personal data in a result is redacted before the client reads it", "lookup_customer", map[string]any{"id": "c-1"}},
	}
	for _, call := range calls {
		events.Reset()
		fmt.Fprintf(w, "== %s: %s %v\n", call.title, call.tool, call.args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			return err
		}
		var texts []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		fmt.Fprintf(w, "  isError=%v %s\n", res.IsError, strings.Join(texts, " "))
		if err := g.audit.Flush(ctx); err != nil {
			return err
		}
		var ev audit.Event
		if err := json.Unmarshal(events.Bytes(), &ev); err != nil {
			return err
		}
		if ev.DecidedBy != "" {
			fmt.Fprintf(w, "  decided by: %s\n", ev.DecidedBy)
		}
		for _, d := range ev.Decisions {
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  audit decision: %s %s %s %s", d.By, d.What, d.Outcome, d.Reason), " "))
		}
	}
	return nil
}
