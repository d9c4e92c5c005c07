package intercept_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// The working group's protocol fixtures (modelcontextprotocol/
// experimental-ext-interceptors, conformance/fixtures/protocol, at the
// commit docs/remote-hooks.md names), written here as a table from what
// each one specifies; the behaviour fixtures are in
// fixtures_behavior_test.go. Their interceptors read
// and edit arguments.note: the roster below does, wherever the payload
// holds the arguments (the params alone, as the fixtures send them;
// {"method", "params"}, as hookflow sends a request; a tool result's
// structuredContent, as a result reaches either side).

// noteArgs is the echo tool's input and output.
type noteArgs struct {
	Note  string `json:"note,omitempty"`
	Other *int   `json:"other,omitempty"`
}

// arguments returns the object of payload that holds the arguments, and
// the decoded payload to edit it in.
func arguments(payload json.RawMessage) (args, root map[string]any) {
	if json.Unmarshal(payload, &root) != nil {
		return nil, nil
	}
	if params, ok := root["params"].(map[string]any); ok {
		args, _ = params["arguments"].(map[string]any)
		return args, root
	}
	if a, ok := root["arguments"].(map[string]any); ok {
		return a, root
	}
	args, _ = root["structuredContent"].(map[string]any)
	return args, root
}

// roster is the fixtures' interceptors, by name.
func roster() map[string]host.Interceptor {
	both, call := host.OnBoth, []string{"tools/call"}
	allow := func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Allow(), nil }
	deny := func(context.Context, *host.Invocation) (host.Verdict, error) {
		return host.Deny("denied by policy"), nil
	}
	crash := func(context.Context, *host.Invocation) (host.Verdict, error) {
		return host.Verdict{}, errors.New("the interceptor crashed")
	}
	requireUpper := func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
		args, _ := arguments(inv.Payload)
		if note, ok := args["note"].(string); ok && note != strings.ToUpper(note) {
			return host.Deny("note must be uppercase"), nil
		}
		return host.Allow(), nil
	}
	upper := func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
		args, root := arguments(inv.Payload)
		note, ok := args["note"].(string)
		if !ok {
			return host.Unchanged(), nil
		}
		args["note"] = strings.ToUpper(note)
		if sc, ok := root["content"].([]any); ok && len(sc) > 0 {
			// A tool result's text is its structured content's JSON.
			b, err := json.Marshal(args)
			if err != nil {
				return host.Mutation{}, err
			}
			sc[0].(map[string]any)["text"] = string(b)
		}
		b, err := json.Marshal(root)
		return host.Replace(b), err
	}
	return map[string]host.Interceptor{
		"allow-all":              host.Validator(host.Spec{Name: "conf/allow-all", Events: call, Phases: both}, allow),
		"wildcard-auditor":       host.Validator(host.Spec{Name: "conf/wildcard-auditor", Events: []string{"*"}, Phases: both}, allow),
		"deny-all":               host.Validator(host.Spec{Name: "conf/deny-all", Events: call, Phases: both}, deny),
		"deny-all-audit":         host.Validator(host.Spec{Name: "conf/deny-all", Events: call, Phases: both, Audit: true}, deny),
		"uppercase-note":         host.Mutator(host.Spec{Name: "conf/uppercase-note", Events: call, Phases: both}, upper),
		"uppercase-note-audit":   host.Mutator(host.Spec{Name: "conf/uppercase-note", Events: call, Phases: both, Audit: true}, upper),
		"require-uppercase-note": host.Validator(host.Spec{Name: "conf/require-uppercase-note", Events: call, Phases: both}, requireUpper),
		"crash-closed":           host.Validator(host.Spec{Name: "conf/crash-closed", Events: call, Phases: both}, crash),
		"crash-open":             host.Validator(host.Spec{Name: "conf/crash-open", Events: call, Phases: both, FailOpen: true}, crash),
	}
}

// source is how the invoker reaches the host serving a fixture's
// interceptors: in process, or over streamable HTTP.
type source string

const (
	inProcess source = "in-process"
	overLoop  source = "http"
)

// serveRoster serves the named interceptors of the roster and returns
// the invoker's configuration of their host.
func serveRoster(t *testing.T, src source, names ...string) intercept.Server {
	t.Helper()
	all := roster()
	var ics []host.Interceptor
	for _, n := range names {
		ics = append(ics, all[n])
	}
	cfg := host.Config{Interceptors: ics}
	if src == overLoop {
		h, err := host.Handler(cfg, host.Serve{Verify: host.Token("conf")})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return intercept.Server{Name: "conf", URL: ts.URL, Token: "conf"}
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "conf"}, nil)
	if err := srv.Use(host.New(cfg)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	return intercept.Server{Name: "conf", Transport: host.InMemory(srv)}
}

// outcome is what a chain step decided: allowed with the final
// arguments, or denied.
type outcome struct {
	deny  bool
	final string // the final arguments' JSON, when allowed
}

// chainFixture is one fixture whose step is "apply": a chain on one
// tools/call payload in one phase.
type chainFixture struct {
	id     string
	roster []string
	phase  wire.Phase
	args   string // the payload's arguments
	want   outcome
	// server is what a hookflow server decides when it departs from the
	// fixture (the two ordering cases); nil when it does not.
	server *outcome
}

var chainFixtures = []chainFixture{
	// Sending a request: mutate, then validate; the validator sees the
	// uppercased note. A server receives the request: it validates what
	// the client sent, "hello", and denies.
	{id: "chain-request-order-mutate-then-validate", roster: []string{"require-uppercase-note", "uppercase-note"},
		phase: wire.Request, args: `{"note":"hello"}`, want: outcome{final: `{"note":"HELLO"}`},
		server: &outcome{deny: true}},
	// Receiving a result: validate, then mutate; the validator sees
	// "hello" and denies. A server sends the result: it uppercases it,
	// then validates it, and lets it through.
	{id: "chain-response-order-validate-then-mutate", roster: []string{"require-uppercase-note", "uppercase-note"},
		phase: wire.Response, args: `{"note":"hello"}`, want: outcome{deny: true},
		server: &outcome{final: `{"note":"HELLO"}`}},
	{id: "chain-validation-blocks", roster: []string{"deny-all"}, phase: wire.Request, args: `{"note":"hi"}`, want: outcome{deny: true}},
	{id: "chain-audit-never-blocks", roster: []string{"deny-all-audit"}, phase: wire.Request, args: `{"note":"hi"}`, want: outcome{final: `{"note":"hi"}`}},
	{id: "chain-audit-mutation-shadowed", roster: []string{"uppercase-note-audit"}, phase: wire.Request, args: `{"note":"hello"}`, want: outcome{final: `{"note":"hello"}`}},
	{id: "chain-fail-closed", roster: []string{"crash-closed"}, phase: wire.Request, args: `{"note":"hi"}`, want: outcome{deny: true}},
	{id: "chain-fail-open", roster: []string{"crash-open"}, phase: wire.Request, args: `{"note":"hi"}`, want: outcome{final: `{"note":"hi"}`}},
}

// onPhase is the invoker policy that narrows the roster's interceptors
// to the fixture step's phase (the fixtures apply one phase at a time).
func onPhase(names []string, phase wire.Phase) []intercept.Policy {
	all := roster()
	var ps []intercept.Policy
	for _, n := range names {
		ps = append(ps, intercept.Policy{Interceptor: all[n].Spec().Name, Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: phase}}})
	}
	return ps
}

// TestFixturesChainSendingSide runs the chain fixtures where a Go client
// sends the tools/call: through Chain.SendingMiddleware around a go-sdk
// client calling an echo tool, and through Chain.Run on the fixture's own
// payload. Every fixture holds as written, the two ordering cases
// included.
func TestFixturesChainSendingSide(t *testing.T) {
	for _, src := range []source{inProcess, overLoop} {
		for _, f := range chainFixtures {
			t.Run(string(src)+"/"+f.id, func(t *testing.T) {
				ch, err := intercept.NewChain(context.Background(), intercept.Config{
					Servers: []intercept.Server{serveRoster(t, src, f.roster...)}, Policy: onPhase(f.roster, f.phase)})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ch.Close() })

				got := callThroughClient(t, ch, f.args)
				if got != f.want {
					t.Errorf("through the client middleware: %+v, want %+v", got, f.want)
				}
				if got := runOnFixturePayload(t, ch, f); got != f.want {
					t.Errorf("Chain.Run on the fixture's payload: %+v, want %+v", got, f.want)
				}
			})
		}
	}
}

// callThroughClient calls a go-sdk server's echo tool with args from a
// client whose sending middleware is ch.
func callThroughClient(t *testing.T, ch *intercept.Chain, args string) outcome {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, noteArgs, error) {
		return nil, in, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil)
	client.AddSendingMiddleware(ch.SendingMiddleware())
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(args)})
	var blocked *intercept.BlockedError
	if errors.As(err, &blocked) {
		return outcome{deny: true}
	}
	if err != nil {
		t.Fatalf("calling echo: %v", err)
	}
	return outcome{final: structured(t, res)}
}

// structured returns a tool result's structured content, compact.
func structured(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("the tool failed: %+v", res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runOnFixturePayload runs ch on the fixture's payload, {"name": "echo",
// "arguments": …}: on a request, inside the method and params hookflow
// sends, as a request the client sends; on a response, as it is, as a
// result the client receives.
func runOnFixturePayload(t *testing.T, ch *intercept.Chain, f chainFixture) outcome {
	t.Helper()
	params := `{"name":"echo","arguments":` + f.args + `}`
	dir, payload := intercept.Send, `{"method":"tools/call","params":`+params+`}`
	if f.phase == wire.Response {
		dir, payload = intercept.Receive, params
	}
	p, err := ch.Run(context.Background(), dir, intercept.Call{Event: "tools/call", Phase: f.phase, Payload: json.RawMessage(payload)})
	var blocked *intercept.BlockedError
	if errors.As(err, &blocked) {
		return outcome{deny: true}
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	args, _ := arguments(p.Payload)
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return outcome{final: string(b)}
}

// TestFixturesChainServerSide runs the chain fixtures where a hookflow
// server receives the tools/call and sends its result: the intercept
// plugin around an echo tool. They hold but for the two ordering cases,
// where the server orders its passes by the direction it receives and
// sends in (the documented departure, docs/remote-hooks.md).
func TestFixturesChainServerSide(t *testing.T) {
	for _, src := range []source{inProcess, overLoop} {
		for _, f := range chainFixtures {
			t.Run(string(src)+"/"+f.id, func(t *testing.T) {
				want := f.want
				if f.server != nil {
					want = *f.server
				}
				got := callHookflowServer(t, intercept.Config{Servers: []intercept.Server{serveRoster(t, src, f.roster...)}, Policy: onPhase(f.roster, f.phase)}, f.args)
				if got != want {
					t.Errorf("%+v, want %+v", got, want)
				}
			})
		}
	}
}

// callHookflowServer calls the echo tool of a hookflow server whose
// intercept plugin is configured by cfg, with args.
func callHookflowServer(t *testing.T, cfg intercept.Config, args string) outcome {
	t.Helper()
	p := intercept.New(cfg)
	t.Cleanup(func() { p.Close() })
	srv := framework.NewServer(&mcp.Implementation{Name: "server"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (noteArgs, error) {
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Use(p); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	got := outcome{deny: res.IsError}
	if !res.IsError {
		got.final = structured(t, res)
	}
	return got
}

// TestFixturesHost runs the fixtures a host answers (listing, filtered
// listing, and the invocations), over both sources.
func TestFixturesHost(t *testing.T) {
	tests := []struct {
		id     string
		roster []string
		list   *wire.ListParams
		invoke *wire.InvokeParams
		want   string // the result without durationMs
		code   int64  // the JSON-RPC error code, when the answer is one
	}{
		{id: "list-all", roster: []string{"allow-all", "uppercase-note"}, list: &wire.ListParams{},
			want: `{"interceptors":[
				{"name":"conf/allow-all","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"},{"events":["tools/call"],"phase":"response"}]},
				{"name":"conf/uppercase-note","type":"mutation","hooks":[{"events":["tools/call"],"phase":"request"},{"events":["tools/call"],"phase":"response"}]}]}`},
		{id: "list-filtered-by-event", roster: []string{"allow-all", "wildcard-auditor"}, list: &wire.ListParams{Event: "prompts/get"},
			want: `{"interceptors":[
				{"name":"conf/wildcard-auditor","type":"validation","hooks":[{"events":["*"],"phase":"request"},{"events":["*"],"phase":"response"}]}]}`},
		{id: "invoke-validation-pass", roster: []string{"allow-all"},
			invoke: &wire.InvokeParams{Name: "conf/allow-all", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"name":"echo","arguments":{"note":"hi"}}`)},
			want:   `{"interceptor":"conf/allow-all","type":"validation","phase":"request","valid":true}`},
		{id: "invoke-validation-deny", roster: []string{"deny-all"},
			invoke: &wire.InvokeParams{Name: "conf/deny-all", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"name":"echo","arguments":{"note":"hi"}}`)},
			want:   `{"interceptor":"conf/deny-all","type":"validation","phase":"request","valid":false,"severity":"error","messages":[{"message":"denied by policy","severity":"error"}]}`},
		{id: "invoke-mutation-modified", roster: []string{"uppercase-note"},
			invoke: &wire.InvokeParams{Name: "conf/uppercase-note", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"name":"echo","arguments":{"note":"hello"}}`)},
			want:   `{"interceptor":"conf/uppercase-note","type":"mutation","phase":"request","modified":true,"payload":{"name":"echo","arguments":{"note":"HELLO"}}}`},
		{id: "invoke-mutation-unmodified", roster: []string{"uppercase-note"},
			invoke: &wire.InvokeParams{Name: "conf/uppercase-note", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"name":"echo","arguments":{"other":1}}`)},
			want:   `{"interceptor":"conf/uppercase-note","type":"mutation","phase":"request","modified":false,"payload":{"name":"echo","arguments":{"other":1}}}`},
		{id: "invoke-unknown-name", roster: []string{"allow-all"},
			invoke: &wire.InvokeParams{Name: "conf/does-not-exist", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{}`)},
			code:   jsonrpc.CodeInvalidParams},
	}
	for _, src := range []source{inProcess, overLoop} {
		for _, tt := range tests {
			t.Run(string(src)+"/"+tt.id, func(t *testing.T) {
				cs := connectRoster(t, serveRoster(t, src, tt.roster...))
				var (
					got any
					err error
				)
				if tt.list != nil {
					got, err = mcp.CallCustomMethod[*wire.ListParams, *wire.ListResult](context.Background(), cs, wire.MethodList, tt.list)
				} else {
					got, err = mcp.CallCustomMethod[*wire.InvokeParams, *wire.Result](context.Background(), cs, wire.MethodInvoke, tt.invoke)
				}
				if tt.code != 0 {
					var rpc *jsonrpc.Error
					if !errors.As(err, &rpc) || rpc.Code != tt.code {
						t.Fatalf("got %v, want the JSON-RPC error %d", err, tt.code)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "durationMs") // volatile, as the fixtures say
				delete(m, "_meta")      // the transport's, not the extension's
				var want map[string]any
				if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
					t.Fatal(err)
				}
				gb, _ := json.Marshal(m)
				wb, _ := json.Marshal(want)
				if string(gb) != string(wb) {
					t.Errorf("got  %s\nwant %s", gb, wb)
				}
			})
		}
	}
}

// connectRoster connects a raw invoker to the host s describes.
func connectRoster(t *testing.T, s intercept.Server) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "raw"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.ListParams, *wire.ListResult](c, wire.MethodList); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](c, wire.MethodInvoke); err != nil {
		t.Fatal(err)
	}
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: s.URL, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: plugintest.BearerClient(s.Token, nil)}
	if s.Transport != nil {
		var err error
		if tr, err = s.Transport(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
