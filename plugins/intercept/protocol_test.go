package intercept_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// rawInvoker connects an MCP client that sends the extension's methods to
// a test host serving serve.
func rawInvoker(t *testing.T, kind hostKind, serve ...string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "raw"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](c, wire.MethodInvoke); err != nil {
		t.Fatal(err)
	}
	var tr mcp.Transport
	if kind == overStdio {
		tr = &mcp.CommandTransport{Command: exec.Command(testhost, "-serve", strings.Join(serve, ","))}
	} else {
		addr := startHTTPHost(t, "-serve", strings.Join(serve, ","), "-token", hostToken)
		tr = &mcp.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: plugintest.BearerClient(hostToken, nil)}
	}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A host answers an invocation of a name it does not serve with the SEP's
// error: -32602, data {"name": …}.
func TestUnknownInterceptorName(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		cs := rawInvoker(t, kind, "allow")
		_, err := mcp.CallCustomMethod[*wire.InvokeParams, *wire.Result](context.Background(), cs, wire.MethodInvoke,
			&wire.InvokeParams{Name: "nope", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{"method":"tools/call"}`)})
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || string(e.Data) != `{"name":"nope"}` {
			t.Errorf("invoking an unknown name: %v (%T)", err, err)
		}
	})
}

// An HTTP host refuses an invoker without its token: the plugin cannot
// start (it does not run without the interceptors it was configured with),
// and a bare request gets 401.
func TestBearerTokenRequired(t *testing.T) {
	t.Parallel()
	addr := startHTTPHost(t, "-serve", "allow", "-token", hostToken)
	for _, token := range []string{"", "wrong"} {
		srv := framework.NewServer(&mcp.Implementation{Name: "s"}, nil)
		p := intercept.New(intercept.Config{Servers: []intercept.Server{{Name: "g", URL: "http://" + addr, Token: token}}})
		if err := srv.Use(p); err != nil {
			t.Fatal(err)
		}
		err := srv.Start()
		if err == nil || !strings.Contains(err.Error(), `Config.Servers[0]: connecting to server "g" (http://`+addr+`)`) {
			t.Errorf("token %q: Start() = %v", token, err)
		}
		_ = p.Close()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"interceptors/list"}`))
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
}

// recorder is a reverse proxy in front of an HTTP host that keeps every
// JSON-RPC message of the extension it relays.
type recorder struct {
	mu   sync.Mutex
	msgs []recorded
}

type recorded struct {
	method string
	params json.RawMessage
	result json.RawMessage
	err    json.RawMessage
}

func (rec *recorder) handler(t *testing.T, target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		cw := &capture{ResponseWriter: w}
		proxy.ServeHTTP(cw, r)
		if !strings.HasPrefix(req.Method, "interceptor") || (cw.body.Len() == 0 && r.Context().Err() != nil) {
			return // the invoker gave up waiting: no answer to check
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(cw.body.Bytes(), &resp); err != nil {
			t.Errorf("%s: the host's answer is not one JSON-RPC response: %s", req.Method, cw.body.Bytes())
		}
		rec.mu.Lock()
		rec.msgs = append(rec.msgs, recorded{req.Method, req.Params, resp.Result, resp.Error})
		rec.mu.Unlock()
	})
}

type capture struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.body.Write(p)
	return c.ResponseWriter.Write(p)
}

// messages returns the messages recorded so far.
func (rec *recorder) messages() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.msgs)
}

// readTee returns the extension's messages that the recording wrapper
// logged to log: each request the invoker sent, with the host's answer
// when there was one. The log must be whole: its wrappers have exited.
func readTee(t *testing.T, log string) []recorded {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []recorded
	sent := map[string]int{} // "<pid> <id>" → index in out
	for line := range strings.Lines(string(data)) {
		if !strings.HasSuffix(line, "\n") {
			break // a wrapper stopped as it wrote a message no one read
		}
		pid, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		dir, msg, _ := strings.Cut(rest, " ")
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(msg), &m); err != nil {
			t.Errorf("a line on the wire is not one JSON-RPC message: %q", line)
			continue
		}
		key := pid + " " + string(m.ID)
		switch {
		case m.ID == nil: // a notification
		case dir == ">" && strings.HasPrefix(m.Method, "interceptor"):
			sent[key] = len(out)
			out = append(out, recorded{method: m.Method, params: m.Params})
		case dir == "<" && m.Method == "":
			if i, ok := sent[key]; ok {
				out[i].result, out[i].err = m.Result, m.Error
			}
		}
	}
	return out
}

// Every message the plugin and a host exchange, requests and answers, is
// valid against the SEP's shapes (package wire's JSON Schema): over HTTP,
// as a reverse proxy relays them; over stdio, as a recording wrapper
// around the host's command relays them.
func TestMessagesOnTheWireMatchTheSchema(t *testing.T) {
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	forEachKind(t, func(t *testing.T, kind hostKind) {
		// The sleeping validator has a host of its own: a host that
		// answers a timed-out invocation later than the grace after its
		// timeout (as a loaded machine may) is stalled, and the calls
		// after it would then fail on every interceptor it serves.
		host := func(name string, serve ...string) (intercept.Server, func() []recorded) {
			if kind == overHTTP {
				addr := startHTTPHost(t, append(serve, "-token", hostToken)...)
				rec := &recorder{}
				proxy := httptest.NewServer(rec.handler(t, "http://"+addr))
				t.Cleanup(proxy.Close)
				return intercept.Server{Name: name, URL: proxy.URL, Token: hostToken}, rec.messages
			}
			log := filepath.Join(t.TempDir(), name+".log")
			return teeServer(name, log, append([]string{testhost}, serve...)...), func() []recorded { return readTee(t, log) }
		}
		server, main := host("g", "-serve", "allow,deny-results,warn,tag-a,audit-upper,fail")
		sleeper, slept := host("z", "-serve", "sleep")
		messages := func() []recorded { return append(main(), slept()...) }
		yes := true
		s := newSetup(t, intercept.Config{Servers: []intercept.Server{server, sleeper},
			Policy: []intercept.Policy{{Interceptor: "sleep", Timeout: 50 * time.Millisecond, FailOpen: &yes}, {Interceptor: "fail", FailOpen: &yes}}})
		s.echo("hello").WantText(plugintest.EchoText("hello+a+a"))
		s.echo("SECRET").WantToolError("the result was blocked")
		if len(s.h.ToolNames()) == 0 {
			t.Error("tools/list through the interceptors listed nothing")
		}
		// Closed, the plugin ends the host's command: the wrapper's log
		// is whole. (How the command ended does not matter here: every
		// line is logged before it is relayed.)
		if err := s.plugin.Close(); err != nil {
			t.Logf("closing the plugin: %v", err)
		}

		counts := map[string]int{}
		for _, m := range messages() {
			def := map[string][2]string{wire.MethodList: {wire.DefListParams, wire.DefListResult}, wire.MethodInvoke: {wire.DefInvokeParams, wire.DefInvokeResult}}[m.method]
			if err := v.Validate(def[0], m.params); err != nil {
				t.Errorf("%s params %s: %v", m.method, m.params, err)
			}
			switch {
			case m.result != nil:
				counts[m.method+" result"]++
				if err := v.Validate(def[1], m.result); err != nil {
					t.Errorf("%s result %s: %v", m.method, m.result, err)
				}
			case m.err != nil:
				counts[m.method+" error"]++
				var e struct {
					Data json.RawMessage `json:"data"`
				}
				_ = json.Unmarshal(m.err, &e)
				if err := v.Validate(wire.DefErrorData, e.Data); err != nil {
					t.Errorf("%s error %s: %v", m.method, m.err, err)
				}
			}
		}
		// One list per host; per call, validators and mutators of both phases; the
		// sleeping validator's timeout and the failing mutator are errors.
		if counts["interceptors/list result"] != 2 || counts["interceptor/invoke result"] < 10 || counts["interceptor/invoke error"] < 4 {
			t.Errorf("recorded %v", counts)
		}
	})
}

// Bad configurations stop the server, naming the field; a policy naming an
// interceptor no host lists gets a did-you-mean; a policy may narrow an
// interceptor's hooks, never widen them.
func TestBadConfiguration(t *testing.T) {
	t.Parallel()
	host := startHost(t, overStdio, "g", "tag-a", "deny")
	tests := []struct {
		name string
		cfg  intercept.Config
		want string
	}{
		{"no servers", intercept.Config{}, "servers: at least one interceptor host is required"},
		{"no name", intercept.Config{Servers: []intercept.Server{{URL: "http://x"}}}, "servers[0].name: required"},
		{"two names", intercept.Config{Servers: []intercept.Server{host, host}}, `servers[1].name: "g" names two hosts`},
		{"no transport", intercept.Config{Servers: []intercept.Server{{Name: "a"}}}, "servers[0]: set url (streamable HTTP) or command (stdio)"},
		{"both transports", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: "http://x", Command: []string{"x"}}}}, "set url or command, not both"},
		{"bad URL", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: "ftp://x"}}}, `servers[0].url: want an http or https URL, got "ftp://x"`},
		{"token over stdio", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: []string{"x"}, Token: "t"}}}, "servers[0]: a token is sent over HTTP only"},
		{"unknown program", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: []string{"/nonexistent/host"}}}}, `Config.Servers[0]: connecting to server "a" (command /nonexistent/host)`},
		{"not a host", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: []string{testhost, "-serve", "nope"}}}}, `connecting to server "a"`},
		{"policy typo", intercept.Config{Servers: []intercept.Server{host}, Policy: []intercept.Policy{{Interceptor: "tag-x"}}},
			`Config.Policy[0]: no server lists an interceptor "tag-x" (did you mean "tag-a"?)`},
		{"policy server", intercept.Config{Servers: []intercept.Server{host}, Policy: []intercept.Policy{{Server: "h", Interceptor: "deny"}}},
			`policy[0].interceptor: no interceptor host is named "h"`},
		{"policy mode", intercept.Config{Servers: []intercept.Server{host}, Policy: []intercept.Policy{{Interceptor: "deny", Mode: "enforce"}}},
			`policy[0].mode: want active or audit, got "enforce" (the older drafts' name of active)`},
		{"widening", intercept.Config{Servers: []intercept.Server{host}, Policy: []intercept.Policy{{Interceptor: "deny",
			Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Response}}}}},
			`Config.Policy[0] (g:deny): Hooks: the interceptor does not advertise response on tools/call; a policy may only narrow its hooks`},
		{"widening to all", intercept.Config{Servers: []intercept.Server{host}, Policy: []intercept.Policy{{Interceptor: "deny",
			Hooks: []wire.Hook{{Events: []string{"*"}, Phase: wire.Request}}}}},
			`does not advertise request on *`},
	}
	for _, tt := range tests {
		srv := framework.NewServer(&mcp.Implementation{Name: "s"}, nil)
		p := intercept.New(tt.cfg)
		if err := srv.Use(p); err != nil {
			t.Fatal(err)
		}
		err := srv.Start()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Start() = %v\nwant it to contain %q", tt.name, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), `plugin "intercept"`) {
			t.Errorf("%s: the error does not name the plugin: %v", tt.name, err)
		}
		_ = p.Close()
	}
}

// The plugin maps every SEP event onto the flow of its method, read from
// the flow table: "*" reaches every flow whose method is a context
// operation, and no other. Plan lists the hooks in run order.
func TestPlan(t *testing.T) {
	t.Parallel()
	s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, overStdio, "g", "allow", "tag-b", "tag-a", "deny")}})
	var got []string
	for _, st := range s.plugin.Plan() {
		got = append(got, string(st.Flow)+" "+string(st.Phase)+" "+st.Hook)
		if want := intercept.DirectionOf(st.Flow, st.Phase); st.Direction != want {
			t.Errorf("%s %s %s: direction %v, want %v", st.Flow, st.Phase, st.Hook, st.Direction, want)
		}
	}
	for _, tc := range []struct {
		flow  flows.ID
		phase wire.Phase
		want  intercept.Direction
	}{
		{flows.ToolsCallTool, wire.Request, intercept.Receive},
		{flows.ToolsCallTool, wire.Response, intercept.Send},
		{flows.SamplingCreateMessage, wire.Request, intercept.Send},
		{flows.SamplingCreateMessage, wire.Response, intercept.Receive},
	} {
		if got := intercept.DirectionOf(tc.flow, tc.phase); got != tc.want {
			t.Errorf("DirectionOf(%s, %s) = %v, want %v", tc.flow, tc.phase, got, tc.want)
		}
	}
	var want []string
	for _, f := range flows.All() {
		event, ok := intercept.Event(f.ID)
		if !ok {
			continue
		}
		if event != f.Method {
			t.Errorf("Event(%s) = %q, want its method %q", f.ID, event, f.Method)
		}
		if f.ID == flows.ToolsCallTool {
			want = append(want, "tools:call-tool request g:allow", "tools:call-tool request g:deny",
				"tools:call-tool request g:tag-a", "tools:call-tool request g:tag-b",
				"tools:call-tool response g:tag-a", "tools:call-tool response g:tag-b", "tools:call-tool response g:allow")
			continue
		}
		want = append(want, string(f.ID)+" request g:allow", string(f.ID)+" response g:allow")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range []flows.ID{flows.SessionInitialize, flows.CompletionComplete} {
		if _, ok := intercept.Event(f); ok {
			t.Errorf("%s is not a context operation", f)
		}
	}
	// The interceptors of other flows run too: "allow" sees tools/list.
	if names := s.h.ToolNames(); len(names) == 0 {
		t.Error("tools/list through the interceptors listed nothing")
	}
}
