package main

//go:generate go tool hookgen

import (
	"bytes"
	"context"
	"crypto/subtle"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
)

func main() {
	demo := flag.Bool("demo", false, "connect an in-process client, call the tools and print every run's stages and hooks")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	token := flag.String("token", "", "with -http: require this bearer token, which grants the weather.admin scope")
	traces := flag.Bool("otel", false, "trace every run with OpenTelemetry and print the spans as JSON lines (on stdout; on stderr when serving stdio)")
	consoleAddr := flag.String("console", "", "serve the console on this address, e.g. 127.0.0.1:9090; its token is the environment variable "+consoleTokenEnv)
	auditFile := flag.String("audit", "", "write the audit events as JSON lines to this file (rotated by size) instead of stderr")
	flag.Parse()

	var more []framework.Plugin
	if *consoleAddr != "" && !*demo {
		c := console.New(console.Config{Addr: *consoleAddr, TokenEnv: consoleTokenEnv, Redact: []string{"description"}})
		defer c.Close(context.Background())
		more = append(more, c)
	}
	if *traces {
		w := os.Stdout
		if *addr == "" && !*demo {
			w = os.Stderr // stdout is the MCP transport
		}
		prov, err := otelsetup.Stdout(w, otelsetup.StdoutConfig{Compact: true, ServiceName: "quickstart"})
		if err != nil {
			log.Fatal(err)
		}
		defer prov.Shutdown(context.Background())
		more = append(more, otel.New(otel.Config{TracerProvider: prov.TracerProvider, MeterProvider: prov.MeterProvider}))
	}
	if *demo {
		if err := runDemo(context.Background(), os.Stdout, more...); err != nil {
			log.Fatal(err)
		}
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	base := "http://" + *addr
	if *addr == "" || *token == "" {
		base = ""
	}
	sink := audit.Config{Handler: slog.NewJSONHandler(os.Stderr, nil)}
	if *auditFile != "" {
		sink = audit.Config{File: audit.File{Path: *auditFile}}
	}
	q, err := newServer(nil, logger, sink, staticToken(*token), base, more...)
	if err != nil {
		log.Fatal(err)
	}
	defer closeAudit(q.audit)
	if *addr == "" {
		if err := q.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := q.httpHandler(base)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("quickstart: serving MCP on http://%s", *addr)
	log.Fatal(framework.NewHTTPServer(*addr, h).ListenAndServe())
}

// consoleTokenEnv is the environment variable that holds the console's
// token, with -console.
const consoleTokenEnv = "HOOKFLOW_CONSOLE_TOKEN"

// metadataPath is where the server's OAuth protected resource metadata
// (RFC 9728) is served.
const metadataPath = "/.well-known/oauth-protected-resource"

// httpHandler serves the server over streamable HTTP. With base (the
// server's URL, set with -token) requests need the bearer token, and the
// protected resource metadata that the 401 challenges point OAuth clients
// to is served beside the MCP endpoint, outside the auth middleware: a
// client must be able to read it before it has a token.
func (q *quickstart) httpHandler(base string) (http.Handler, error) {
	if base == "" {
		return q.srv.HTTPHandler(nil)
	}
	h, err := q.auth.Handler(q.srv, nil)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(metadataPath, sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               base,
		ScopesSupported:        []string{"weather.admin"},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "quickstart",
	}))
	mux.Handle("/", h)
	return mux, nil
}

// quickstart is the server and the plugins main and the demo talk to.
type quickstart struct {
	srv   *framework.Server
	audit *audit.Plugin
	auth  *auth.Plugin
}

// newServer builds the quickstart server. observer, when set, sees every
// hook call; sink is where the audit events go (its Handler or File);
// verify checks bearer tokens on HTTP; base, when set, is the server's
// URL, whose protected resource metadata the auth plugin's challenges
// name; more are further plugins (-otel adds the tracer).
func newServer(observer flows.Observer, logger *slog.Logger, sink audit.Config, verify sdkauth.TokenVerifier, base string, more ...framework.Plugin) (*quickstart, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "quickstart", Version: "0.1.0"}, &framework.Options{
		Observer: observer,
		Logger:   logger,
	})
	if err := RegisterHookflow(srv); err != nil {
		return nil, err
	}
	q := &quickstart{
		srv:   srv,
		audit: audit.New(audit.Config{Handler: sink.Handler, File: sink.File, Flows: []flows.ID{flows.ToolsCallTool}}),
		auth:  auth.New(authConfig(verify, base)),
	}
	if err := srv.Use(append([]framework.Plugin{q.auth, q.audit}, more...)...); err != nil {
		return nil, err
	}
	return q, srv.Start()
}

// authConfig is the auth plugin's configuration: with base, 401
// challenges name the resource metadata served at base + metadataPath.
func authConfig(verify sdkauth.TokenVerifier, base string) auth.Config {
	c := auth.Config{Verifier: verify}
	if base != "" {
		c.ResourceMetadataURL = base + metadataPath
	}
	return c
}

// closeAudit writes the queued audit events, giving a stuck sink at most
// five seconds; what it could not write is counted as dropped.
func closeAudit(a *audit.Plugin) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		log.Printf("quickstart: closing the audit plugin: %v (%d events dropped)", err, a.Dropped())
	}
}

// staticToken accepts one bearer token, which grants weather.admin. An empty
// token accepts none.
func staticToken(token string) sdkauth.TokenVerifier {
	return func(ctx context.Context, got string, req *http.Request) (*sdkauth.TokenInfo, error) {
		if token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, fmt.Errorf("unknown token: %w", sdkauth.ErrInvalidToken)
		}
		return &sdkauth.TokenInfo{UserID: "admin", Scopes: []string{"weather.admin"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
}

// runDemo calls the quickstart's tools from an in-process client and prints
// the trace of every run and its audit event; more are further plugins.
func runDemo(ctx context.Context, w io.Writer, more ...framework.Plugin) error {
	var trace []string
	var events bytes.Buffer
	q, err := newServer(traceCalls(&trace), slog.New(slog.DiscardHandler), audit.Config{Handler: demoAudit(&events)}, staticToken(""), "", more...)
	if err != nil {
		return err
	}
	defer closeAudit(q.audit)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := q.srv.Connect(ctx, st, nil); err != nil {
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
		{"a call the auth plugin blocks (no token has weather.admin here)", "set_forecast", map[string]any{"city": "Paris", "description": "snow"}},
		{"a plain tool", "add", map[string]any{"a": 1, "b": 2}},
	}
	for _, call := range calls {
		trace = trace[:0]
		events.Reset()
		fmt.Fprintf(w, "== %s: %s %v\n", call.title, call.tool, call.args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		fmt.Fprintln(w, strings.Join(trace, "\n"))
		printResult(w, res, err)
		if err := q.audit.Flush(ctx); err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(events.String()), "\n") {
			fmt.Fprintf(w, "  audit: %s\n", line)
		}
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range lt.Tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(w, "== tools/list without a token: %s (auth hides set_forecast)\n", strings.Join(names, ", "))
	return nil
}

// traceCalls returns an observer that appends a line to trace for every
// hook and step of a tools/call run.
func traceCalls(trace *[]string) flows.Observer {
	return func(ev *flows.Event) {
		if ev.Flow != flows.ToolsCallTool {
			return // the list runs auth uses to check a tool is visible
		}
		what := ev.Hook
		if what == "" {
			what = "(" + ev.Step + ")"
		} else {
			what = ev.Stage.String() + " " + what
		}
		*trace = append(*trace, fmt.Sprintf("    %-8s %s", ev.Outcome, what))
	}
}

// demoAudit returns the audit handler of the demo: the outcome, the
// deciding hook, the error and the arguments of each event, as text on w.
func demoAudit(w io.Writer) slog.Handler {
	return slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case "outcome", "decided_by", "error", "args":
			return a
		}
		return slog.Attr{}
	}})
}

// printResult prints what a call answered: a protocol error, an isError
// result or a result.
func printResult(w io.Writer, res *mcp.CallToolResult, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(w, "  protocol error: %v\n", err)
	case res.IsError:
		fmt.Fprintf(w, "  isError result: %s\n", text(res.Content))
	default:
		fmt.Fprintf(w, "  result: %s\n", text(res.Content))
	}
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
