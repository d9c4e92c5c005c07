package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

var toolsCall = []string{"tools/call"}

// interceptors are the test host's interceptors.
func interceptors() []host.Interceptor {
	return []host.Interceptor{
		host.Validator(host.Spec{Name: "allow", Events: toolsCall, Phases: host.OnBoth},
			func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Allow(), nil }),
		host.Validator(host.Spec{Name: "deny", Events: toolsCall},
			func(context.Context, *host.Invocation) (host.Verdict, error) {
				return host.Deny("denied by policy"), nil
			}),
		host.Mutator(host.Spec{Name: "upper", Events: []string{"tools/*"}, Phases: host.OnBoth, PriorityHint: wire.HintPerPhase(-5, 5)},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				if !strings.Contains(string(inv.Payload), "note") {
					return host.Unchanged(), nil
				}
				return host.Replace(json.RawMessage(strings.ToUpper(string(inv.Payload)))), nil
			}),
		host.Validator(host.Spec{Name: "slow", Events: []string{"*"}},
			func(ctx context.Context, _ *host.Invocation) (host.Verdict, error) {
				<-ctx.Done() // runs until the invocation times out
				return host.Allow(), nil
			}),
		host.Validator(host.Spec{Name: "panics", Events: toolsCall},
			func(context.Context, *host.Invocation) (host.Verdict, error) { panic("secret value") }),
		host.Mutator(host.Spec{Name: "fails", Events: toolsCall, Audit: true, FailOpen: true},
			func(context.Context, *host.Invocation) (host.Mutation, error) {
				return host.Mutation{}, errors.New("backend down")
			}),
		host.Validator(host.Spec{Name: "configured", Events: []string{"resources/read"},
			ConfigSchema: json.RawMessage(`{"type":"object","properties":{"level":{"enum":["low","high"]}},"required":["level"]}`)},
			func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
				return host.Verdict{Valid: true, Info: map[string]any{"level": inv.Config["level"]}}, nil
			}),
	}
}

func newHost(t *testing.T) (*framework.Server, *host.Plugin) {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "guard"}, nil)
	p := host.New(host.Config{Interceptors: interceptors()})
	if err := srv.Use(p); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// invoker is a client session that can send the extension's methods.
func invoker(t *testing.T, connect func(*mcp.Client) (*mcp.ClientSession, error)) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "invoker"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.ListParams, *wire.ListResult](c, wire.MethodList); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](c, wire.MethodInvoke); err != nil {
		t.Fatal(err)
	}
	cs, err := connect(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func inMemory(t *testing.T, srv *framework.Server) func(*mcp.Client) (*mcp.ClientSession, error) {
	return func(c *mcp.Client) (*mcp.ClientSession, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return c.Connect(context.Background(), ct, nil)
	}
}

func list(t *testing.T, cs *mcp.ClientSession, event string) (*wire.ListResult, error) {
	t.Helper()
	return mcp.CallCustomMethod[*wire.ListParams, *wire.ListResult](context.Background(), cs, wire.MethodList, &wire.ListParams{Event: event})
}

func invoke(cs *mcp.ClientSession, p *wire.InvokeParams) (*wire.Result, error) {
	return mcp.CallCustomMethod[*wire.InvokeParams, *wire.Result](context.Background(), cs, wire.MethodInvoke, p)
}

func names(r *wire.ListResult) string {
	var out []string
	for _, i := range r.Interceptors {
		out = append(out, i.Name)
	}
	return strings.Join(out, ",")
}

// rpcError returns err's JSON-RPC error, failing the test when it has none.
func rpcError(t *testing.T, err error) (int64, wire.ErrorData) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a JSON-RPC error", err)
	}
	var d wire.ErrorData
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("error data %s: %v", e.Data, err)
		}
	}
	return e.Code, d
}

func TestList(t *testing.T) {
	srv, p := newHost(t)
	cs := invoker(t, inMemory(t, srv))
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ event, want string }{
		{"", "allow,deny,upper,slow,panics,fails,configured"},
		{"tools/call", "allow,deny,upper,slow,panics,fails"},
		{"tools/list", "upper,slow"},
		{"resources/read", "slow,configured"},
		{"prompts/get", "slow"},
	}
	for _, tt := range tests {
		res, err := list(t, cs, tt.event)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(res); got != tt.want {
			t.Errorf("list %q = %s, want %s", tt.event, got, tt.want)
		}
		b, _ := json.Marshal(res)
		if err := v.Validate(wire.DefListResult, b); err != nil {
			t.Error(err)
		}
	}
	if len(p.Interceptors()) != 7 {
		t.Errorf("Interceptors() = %v", p.Interceptors())
	}
	// A pattern is not an event name.
	for _, pattern := range []string{"*", "tools/*"} {
		_, err := list(t, cs, pattern)
		if code, _ := rpcError(t, err); code != jsonrpc.CodeInvalidParams {
			t.Errorf("list %q: code %d", pattern, code)
		}
	}
	// The descriptors carry the author's defaults.
	res, _ := list(t, cs, "")
	b, _ := json.Marshal(res.Interceptors[2])
	if want := `{"name":"upper","type":"mutation","hooks":[{"events":["tools/*"],"phase":"request"},{"events":["tools/*"],"phase":"response"}],"priorityHint":{"request":-5,"response":5}}`; string(b) != want {
		t.Errorf("upper = %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(res.Interceptors[5])
	if want := `{"name":"fails","type":"mutation","hooks":[{"events":["tools/call"],"phase":"request"}],"mode":"audit","failOpen":true}`; string(b) != want {
		t.Errorf("fails = %s\nwant %s", b, want)
	}
}

func TestInvoke(t *testing.T) {
	srv, _ := newHost(t)
	cs := invoker(t, inMemory(t, srv))
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	call := json.RawMessage(`{"method":"tools/call","params":{"name":"echo","arguments":{"note":"hi"}}}`)
	tests := []struct {
		name   string
		params wire.InvokeParams
		want   string // the result without durationMs
	}{
		{"allow", wire.InvokeParams{Name: "allow", Event: "tools/call", Phase: wire.Response, Payload: json.RawMessage(`{"content":[]}`)},
			`{"interceptor":"allow","type":"validation","phase":"response","valid":true}`},
		{"deny", wire.InvokeParams{Name: "deny", Event: "tools/call", Phase: wire.Request, Payload: call},
			`{"interceptor":"deny","type":"validation","phase":"request","valid":false,"severity":"error","messages":[{"message":"denied by policy","severity":"error"}]}`},
		{"mutation", wire.InvokeParams{Name: "upper", Event: "tools/call", Phase: wire.Request, Payload: call},
			`{"interceptor":"upper","type":"mutation","phase":"request","modified":true,"payload":{"METHOD":"TOOLS/CALL","PARAMS":{"NAME":"ECHO","ARGUMENTS":{"NOTE":"HI"}}}}`},
		{"unchanged", wire.InvokeParams{Name: "upper", Event: "tools/list", Phase: wire.Response, Payload: json.RawMessage(`{"tools":[]}`)},
			`{"interceptor":"upper","type":"mutation","phase":"response","modified":false,"payload":{"tools":[]}}`},
		{"config", wire.InvokeParams{Name: "configured", Event: "resources/read", Phase: wire.Request, Payload: json.RawMessage(`{}`), Config: map[string]any{"level": "high"}},
			`{"interceptor":"configured","type":"validation","phase":"request","info":{"level":"high"},"valid":true}`},
	}
	for _, tt := range tests {
		res, err := invoke(cs, &tt.params)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.DurationMs == nil {
			t.Errorf("%s: no durationMs", tt.name)
		}
		b, _ := json.Marshal(res)
		if err := v.Validate(wire.DefInvokeResult, b); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		res.DurationMs = nil
		res.Meta = nil // the SDK's own, e.g. serverInfo on 2026-07-28
		if b, _ := json.Marshal(res); string(b) != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.name, b, tt.want)
		}
	}
}

// TestInvokeSpellings: the host answers an invocation under the singular
// method the SEP's text uses and under the plural the working group has
// under discussion, the same way.
func TestInvokeSpellings(t *testing.T) {
	srv, _ := newHost(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "invoker"}, nil)
	for _, m := range []string{wire.MethodInvoke, wire.MethodInvokePlural} {
		if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](c, m); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := inMemory(t, srv)(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	p := &wire.InvokeParams{Name: "deny", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"name":"echo"}`)}
	for _, m := range []string{wire.MethodInvoke, wire.MethodInvokePlural} {
		res, err := mcp.CallCustomMethod[*wire.InvokeParams, *wire.Result](context.Background(), cs, m, p)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if res.Interceptor != "deny" || res.Valid == nil || *res.Valid {
			t.Errorf("%s: %+v, want the deny validator's verdict", m, res)
		}
	}
}

func TestInvokeErrors(t *testing.T) {
	srv, _ := newHost(t)
	cs := invoker(t, inMemory(t, srv))
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	payload := json.RawMessage(`{"method":"tools/call","params":{"name":"echo"}}`)
	tests := []struct {
		name   string
		params wire.InvokeParams
		code   int64
		data   string
	}{
		{"unknown name", wire.InvokeParams{Name: "nope", Event: "tools/call", Phase: wire.Request, Payload: payload},
			jsonrpc.CodeInvalidParams, `{"name":"nope"}`},
		{"hook not advertised", wire.InvokeParams{Name: "deny", Event: "tools/call", Phase: wire.Response, Payload: payload},
			jsonrpc.CodeInvalidParams, `{"name":"deny","event":"tools/call","phase":"response","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{"bad phase", wire.InvokeParams{Name: "deny", Event: "tools/call", Phase: "both", Payload: payload},
			jsonrpc.CodeInvalidParams, `{"detail":"unknown phase \"both\" (want \"request\" or \"response\")"}`},
		{"no event", wire.InvokeParams{Name: "deny", Phase: wire.Request, Payload: payload},
			jsonrpc.CodeInvalidParams, `{"detail":"event is required"}`},
		{"config refused", wire.InvokeParams{Name: "configured", Event: "resources/read", Phase: wire.Request, Payload: payload, Config: map[string]any{"level": "max"}},
			jsonrpc.CodeInvalidParams, ""},
		{"timeout", wire.InvokeParams{Name: "slow", Event: "tools/call", Phase: wire.Request, Payload: payload, TimeoutMs: 20},
			wire.CodeTimeout, `{"phase":"request","interceptor":"slow","reason":"timeout","timeoutMs":20}`},
		{"panic", wire.InvokeParams{Name: "panics", Event: "tools/call", Phase: wire.Request, Payload: payload},
			jsonrpc.CodeInternalError, `{"interceptor":"panics","reason":"the interceptor panicked"}`},
		{"error", wire.InvokeParams{Name: "fails", Event: "tools/call", Phase: wire.Request, Payload: payload},
			jsonrpc.CodeInternalError, `{"interceptor":"fails","reason":"backend down"}`},
	}
	for _, tt := range tests {
		_, err := invoke(cs, &tt.params)
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v is not a JSON-RPC error", tt.name, err)
		}
		if e.Code != tt.code {
			t.Errorf("%s: code %d, want %d (%v)", tt.name, e.Code, tt.code, err)
		}
		if tt.data != "" && string(e.Data) != tt.data {
			t.Errorf("%s: data %s\nwant %s", tt.name, e.Data, tt.data)
		}
		if err := v.Validate(wire.DefErrorData, e.Data); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if strings.Contains(e.Message+string(e.Data), "secret value") {
			t.Errorf("%s: the panic value reached the invoker", tt.name)
		}
	}
}

func TestDeclaresTheExtension(t *testing.T) {
	srv, _ := newHost(t)
	for _, version := range []string{"2025-11-25", ""} {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		caps := cs.InitializeResult().Capabilities
		b, _ := json.Marshal(caps.Extensions[wire.Extension])
		if want := `{"supportedEvents":["tools/call","tools/*","*","resources/read"]}`; string(b) != want {
			t.Errorf("protocol %q: extension settings %s, want %s", version, b, want)
		}
		cs.Close()
	}
}

func TestBadConfiguration(t *testing.T) {
	noop := func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Allow(), nil }
	tests := []struct {
		name string
		ics  []host.Interceptor
		want string
	}{
		{"no name", []host.Interceptor{host.Validator(host.Spec{Events: toolsCall}, noop)}, `interceptor 0 (""): no Name`},
		{"no events", []host.Interceptor{host.Validator(host.Spec{Name: "a"}, noop)}, `interceptor 0 ("a"): no Events`},
		{"no function", []host.Interceptor{{}}, "no function"},
		{"twice", []host.Interceptor{host.Validator(host.Spec{Name: "a", Events: toolsCall}, noop), host.Validator(host.Spec{Name: "a", Events: toolsCall}, noop)},
			`interceptor "a" is served twice`},
		{"hint on validator", []host.Interceptor{host.Validator(host.Spec{Name: "a", Events: toolsCall, PriorityHint: wire.Hint(1)}, noop)}, "PriorityHint is set on a validator"},
		{"config schema", []host.Interceptor{host.Validator(host.Spec{Name: "a", Events: toolsCall, ConfigSchema: json.RawMessage(`{"type":"string"}`)}, noop)}, "restricts it to an object schema"},
	}
	for _, tt := range tests {
		srv := framework.NewServer(&mcp.Implementation{Name: "h"}, nil)
		if err := srv.Use(host.New(host.Config{Interceptors: tt.ics})); err != nil {
			t.Fatal(err)
		}
		err := srv.Start()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Start() = %v, want %q", tt.name, err, tt.want)
		}
	}
	// Not on an app.
	srv := framework.NewServer(&mcp.Implementation{Name: "h"}, nil)
	app, err := srv.App("a")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Use(host.New(host.Config{})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), "not to an app") {
		t.Errorf("on an app: %v", err)
	}
	// Add after Start.
	srv, p := newHost(t)
	_ = srv
	if err := p.Add(interceptors()...); err == nil {
		t.Error("Add after Start succeeded")
	}
}

// Over HTTP the host refuses callers without the token before reading any
// message, and serves those with it.
func TestHandlerNeedsAToken(t *testing.T) {
	if _, err := host.Handler(host.Config{}, host.Serve{}); err == nil {
		t.Fatal("Handler without Verify succeeded")
	}
	h, err := host.Handler(host.Config{Interceptors: interceptors()}, host.Serve{Verify: host.Token("s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	connect := func(token string) func(*mcp.Client) (*mcp.ClientSession, error) {
		return func(c *mcp.Client) (*mcp.ClientSession, error) {
			hc := plugintest.BearerClient(token, nil)
			hc.Timeout = 10 * time.Second
			return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
		}
	}
	for _, token := range []string{"", "wrong"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "invoker"}, nil)
		if cs, err := connect(token)(c); err == nil {
			cs.Close()
			t.Errorf("token %q: connected", token)
		}
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"interceptors/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", token, resp.StatusCode)
		}
	}
	cs := invoker(t, connect("s3cret"))
	res, err := list(t, cs, "tools/list")
	if err != nil {
		t.Fatal(err)
	}
	if names(res) != "upper,slow" {
		t.Errorf("list over HTTP = %s", names(res))
	}
	if _, err := invoke(cs, &wire.InvokeParams{Name: "deny", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{}`)}); err != nil {
		t.Error(err)
	}
}
