package framework_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// waitLimit bounds every wait for something the server does asynchronously
// (a cancelled handler, a finally hook after a client gave up). It is a
// failure deadline, never a synchronization: tests wait on channels.
const waitLimit = 10 * time.Second

// recorder collects "flow stage" (or any other) events from hooks, safely
// across goroutines.
type recorder struct {
	mu  sync.Mutex
	evs []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.evs = append(r.evs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// take returns the events recorded so far and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := r.evs
	r.evs = nil
	return evs
}

// stagesOf returns, in order, the stages recorded for flow among evs, which
// hold "flow stage" strings.
func stagesOf(evs []string, flow flows.ID) []string {
	var out []string
	for _, e := range evs {
		f, st, ok := strings.Cut(e, " ")
		if ok && f == string(flow) {
			out = append(out, st)
		}
	}
	return out
}

// recordingHooks returns one hook per stage of every flow, recording
// "flow stage" into rec.
func recordingHooks(rec *recorder) []flows.Hook {
	var hooks []flows.Hook
	for _, f := range flows.All() {
		for _, st := range stages.All() {
			hooks = append(hooks, flows.Hook{Flow: f.ID, Stage: st, Name: "rec", Fn: func(c *flows.Context) error {
				rec.add("%s %s", c.Flow(), c.Stage())
				return nil
			}})
		}
	}
	return hooks
}

// The stages a successful run goes through, and a run that fails in
// validation.
var (
	okStages        = []string{"beforeValidation", "afterValidation", "beforeExecute", "afterExecute", "finally"}
	validationFails = []string{"beforeValidation", "onError", "finally"}
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// greeter is a prompt type with a completer.
type greeter struct{}

// addEntities adds the test server's entities: the tool "echo" (fails on
// "fail", panics on "panic"), the resource test://static, the template
// test://items/{id}, and the prompt "greet" (required argument "name", with
// completions).
func addEntities(t testing.TB, r framework.Registrar) {
	t.Helper()
	err := errors.Join(
		framework.AddToolFunc(r, &mcp.Tool{Name: "echo", Description: "echoes its text"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
			switch in.Text {
			case "fail":
				return echoOut{}, errors.New("echo failed on purpose")
			case "panic":
				panic("echo panicked on purpose")
			}
			return echoOut{Echo: in.Text}, nil
		}),
		framework.AddResourceFunc(r, &mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"}, nil,
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "static text"}}}, nil
			}),
		framework.AddResourceFunc(r, nil, &mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "text/plain"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
			}),
		framework.AddPrompt(r, framework.Prompt[greeter]{
			Prompt: &mcp.Prompt{Name: "greet", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
			Get: func(_ greeter, ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}}}, nil
			},
			Complete: func(_ greeter, ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
				var vals []string
				for _, n := range []string{"Ada", "Alan", "Grace"} {
					if strings.HasPrefix(n, req.Params.Argument.Value) {
						vals = append(vals, n)
					}
				}
				return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
			},
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// transport connects a client to a hookflow server one way.
type transport struct {
	name string
	// http is true for streamable HTTP; stateful when it has sessions.
	http, stateful bool
	// protocol is the protocol version the client negotiates.
	protocol string
	// connectMethods are the requests that run session:initialize while the
	// client connects.
	connectMethods []string
	connect        func(t testing.TB, srv *framework.Server, copts *mcp.ClientOptions) *mcp.ClientSession
}

// transports are the ways the tests talk to a server: in memory on both
// protocol generations, and streamable HTTP stateful and stateless.
var transports = []transport{
	{name: "inmemory", protocol: "2026-07-28", connectMethods: []string{"server/discover"}, connect: inMemory("")},
	{name: "inmemory/2025-11-25", protocol: "2025-11-25", connectMethods: []string{"initialize"}, connect: inMemory("2025-11-25")},
	// A stateful server answers server/discover without 2026-07-28 among
	// its versions, so the client falls back to initialize.
	{name: "http/stateful", http: true, stateful: true, protocol: "2025-11-25", connectMethods: []string{"server/discover", "initialize"}, connect: overHTTP(nil)},
	{name: "http/stateless", http: true, protocol: "2026-07-28", connectMethods: []string{"server/discover"}, connect: overHTTP(&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})},
}

func clientImpl() *mcp.Implementation {
	return &mcp.Implementation{Name: "test-client", Version: "1.0.0"}
}

// inMemory connects over mcp.NewInMemoryTransports; version "" lets the
// client pick (2026-07-28).
func inMemory(version string) func(t testing.TB, srv *framework.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	return func(t testing.TB, srv *framework.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		var so *mcp.ClientSessionOptions
		if version != "" {
			so = &mcp.ClientSessionOptions{ProtocolVersion: version}
		}
		cs, err := mcp.NewClient(clientImpl(), copts).Connect(ctx, ct, so)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
}

// testHeader is set on every HTTP request the test clients send.
const testHeader = "X-Hookflow-Test"

type headerRT struct{}

func (headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(testHeader, "yes")
	return http.DefaultTransport.RoundTrip(r)
}

// overHTTP serves srv with HTTPHandler(opts) on an httptest server and
// connects a default client to it.
func overHTTP(opts *mcp.StreamableHTTPOptions) func(t testing.TB, srv *framework.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	return func(t testing.TB, srv *framework.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		h, err := srv.HTTPHandler(opts)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		cs, err := mcp.NewClient(clientImpl(), copts).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: headerRT{}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
}

// textOf returns the text of a tool result's single text content.
func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("want one content item, got %#v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// text returns the text of a tool result's single text content, or a
// description of what it has instead. Unlike textOf it is safe to call from
// any goroutine.
func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return fmt.Sprintf("(%#v)", res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("(%T)", res.Content[0])
}

// wantProtocolError checks that err is a JSON-RPC error with code (the
// client hands back *jsonrpc.Error) and that its message contains substr.
func wantProtocolError(t testing.TB, err error, code int64, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a protocol error %d, got none", code)
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("want a *jsonrpc.Error, got %T: %v", err, err)
	}
	if wire.Code != code {
		t.Fatalf("error code = %d, want %d (%v)", wire.Code, code, err)
	}
	if !strings.Contains(wire.Message, substr) {
		t.Fatalf("error message %q does not contain %q", wire.Message, substr)
	}
}

// wait receives from ch or fails after waitLimit.
func wait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func equal(a, b []string) bool { return slices.Equal(a, b) }
