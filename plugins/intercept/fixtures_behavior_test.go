package intercept_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// The working group's behaviour fixtures (conformance/fixtures/behavior),
// written here as hookflow's own table from the scenarios they describe:
// a stateful validator must refuse a secret that one server returned
// when the same session sends it to another server, and must not refuse
// what is no such flow (the secret sent back to where it came from, a
// secret-shaped value nobody read, a value another session read); a
// mutator must take secrets out of what is sent. The secrets, the tools
// and the two interceptors are this file's own.

// The secrets: one per credential format the scenarios cover, made up
// here, in the public shape of each format.
var secrets = []struct{ format, value string }{
	{"stripe-live-key", "sk_live_h00kfl0wT3stK3yN0tR3al"},
	{"github-token", "ghp_hookflowTestTokenNotReal0001"},
	{"aws-access-key", "AKIAHOOKFLOWTEST0001"},
}

// secretShaped reports whether word has the shape of a secret of one of
// the formats: a known prefix and enough characters after it.
func secretShaped(word string) bool {
	for _, p := range []struct {
		prefix string
		min    int
	}{{"sk_live_", 16}, {"ghp_", 20}, {"AKIA", 16}} {
		if strings.HasPrefix(word, p.prefix) && len(word)-len(p.prefix) >= p.min {
			return true
		}
	}
	return false
}

// words splits s into its runs of letters, digits and underscores.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
}

// strs calls f with every string in the JSON value v.
func strs(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			strs(e, f)
		}
	case map[string]any:
		for _, e := range v {
			strs(e, f)
		}
	}
}

// serverOf is which upstream a tool belongs to, as a gateway in front of
// a filesystem server and a database server would see it.
func serverOf(tool string) string {
	switch tool {
	case "read_file", "write_file":
		return "filesystem"
	case "run_query":
		return "database"
	}
	return ""
}

// toolOf returns the tool name and arguments of a tools/call request
// payload, in either shape (method and params, or the params alone).
func toolOf(payload json.RawMessage) (string, map[string]any) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Params    *struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return "", nil
	}
	if p.Params != nil {
		return p.Params.Name, p.Params.Arguments
	}
	return p.Name, p.Arguments
}

// flowGuard is the stateful validator: per session, the server of the
// last request, and every secret-shaped value a response brought from a
// server. A request that carries such a value to another server is
// refused.
type flowGuard struct {
	mu       sync.Mutex
	sessions map[string]*guardSession
}

type guardSession struct {
	last  string            // the server of the session's last request
	taint map[string]string // secret → the server it came from
}

func (g *flowGuard) session(id string) *guardSession {
	s, ok := g.sessions[id]
	if !ok {
		s = &guardSession{taint: map[string]string{}}
		g.sessions[id] = s
	}
	return s
}

func (g *flowGuard) check(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
	sid := ""
	if inv.Context != nil {
		sid = inv.Context.SessionID
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.session(sid)
	if inv.Phase == wire.Response {
		var v any
		if err := json.Unmarshal(inv.Payload, &v); err != nil {
			return host.Verdict{}, err
		}
		strs(v, func(str string) {
			for _, w := range words(str) {
				if secretShaped(w) {
					s.taint[w] = s.last
				}
			}
		})
		return host.Allow(), nil
	}
	tool, args := toolOf(inv.Payload)
	to := serverOf(tool)
	s.last = to
	var leak string
	strs(map[string]any(args), func(str string) {
		for secret, from := range s.taint {
			if from != to && strings.Contains(str, secret) {
				leak = from
			}
		}
	})
	if leak != "" {
		return host.Deny("a value read from " + leak + " is sent to " + to), nil
	}
	return host.Allow(), nil
}

// redact replaces every secret-shaped word of the request's arguments.
func redact(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
	var root any
	if err := json.Unmarshal(inv.Payload, &root); err != nil {
		return host.Mutation{}, err
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			for _, w := range words(v) {
				if secretShaped(w) {
					v, changed = strings.ReplaceAll(v, w, "[redacted]"), true
				}
			}
			return v
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
		}
		return v
	}
	root = walk(root)
	if !changed {
		return host.Unchanged(), nil
	}
	b, err := json.Marshal(root)
	return host.Replace(b), err
}

// behaviourRoster serves a fresh guard (its state is the fixture's) and
// the redactor, as the fixture names them: "guard", "redactor".
func behaviourRoster(t *testing.T, names ...string) intercept.Server {
	t.Helper()
	call := []string{"tools/call"}
	all := map[string]func() host.Interceptor{
		"guard": func() host.Interceptor {
			g := &flowGuard{sessions: map[string]*guardSession{}}
			return host.Validator(host.Spec{Name: "guard", Events: call, Phases: host.OnBoth}, g.check)
		},
		"redactor": func() host.Interceptor {
			return host.Mutator(host.Spec{Name: "redactor", Events: call}, redact)
		},
	}
	var ics []host.Interceptor
	for _, n := range names {
		ics = append(ics, all[n]())
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "behaviour"}, nil)
	if err := srv.Use(host.New(host.Config{Interceptors: ics})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	return intercept.Server{Name: "b", Transport: host.InMemory(srv)}
}

// behaviourCall is one tool call of a scenario: its request, and, when
// the tool answers with text (read_file), that text as its result.
type behaviourCall struct {
	session string
	tool    string
	args    map[string]any
	result  string
	deny    bool // the request is refused
}

type behaviourFixture struct {
	id     string
	roster []string
	calls  []behaviourCall
	// forbid is a value that must not reach the upstream: absent from
	// every allowed request as it leaves (the sending side) or as the
	// tool gets it (a hookflow server).
	forbid string
	// server is the outcome of the last call on a hookflow server when it
	// departs from the sending side's; nil when it does not.
	server *bool
}

func behaviourFixtures() []behaviourFixture {
	var fs []behaviourFixture
	env := map[string]any{"path": "/srv/app/.env"}
	for _, s := range secrets {
		fs = append(fs, behaviourFixture{id: "cross-server-flow-refused/" + s.format, roster: []string{"guard"}, calls: []behaviourCall{
			{session: "flow-" + s.format, tool: "read_file", args: env, result: "API_KEY=" + s.value},
			{session: "flow-" + s.format, tool: "run_query", args: map[string]any{"sql": "INSERT INTO notes VALUES ('" + s.value + "')"}, deny: true},
		}})
	}
	stripe, github, aws := secrets[0].value, secrets[1].value, secrets[2].value
	fs = append(fs,
		behaviourFixture{id: "written-back-to-its-origin-allowed", roster: []string{"guard"}, calls: []behaviourCall{
			{session: "origin", tool: "read_file", args: env, result: "API_KEY=" + stripe},
			{session: "origin", tool: "write_file", args: map[string]any{"path": "/srv/app/.env.bak", "content": stripe}},
		}},
		behaviourFixture{id: "never-read-allowed", roster: []string{"guard"}, calls: []behaviourCall{
			{session: "unread", tool: "run_query", args: map[string]any{"sql": "INSERT INTO notes VALUES ('" + github + "')"}},
		}},
		behaviourFixture{id: "other-session-allowed", roster: []string{"guard"}, calls: []behaviourCall{
			{session: "first", tool: "read_file", args: env, result: aws},
			{session: "second", tool: "run_query", args: map[string]any{"sql": aws}},
		}},
	)
	for _, s := range secrets {
		fs = append(fs, behaviourFixture{id: "redacted-before-it-leaves/" + s.format, roster: []string{"redactor"}, forbid: s.value, calls: []behaviourCall{
			{session: "redact-" + s.format, tool: "run_query", args: map[string]any{"sql": "INSERT INTO notes VALUES ('" + s.value + "')"}},
		}})
	}
	// The redactor and the guard together: sent, the request is mutated
	// then validated, so the guard sees it redacted and lets it go. A
	// server receives it: it validates what the client sent, before its
	// mutator, and refuses it (the secret does not reach the tool either).
	refused := true
	fs = append(fs, behaviourFixture{id: "redaction-defuses-the-flow", roster: []string{"guard", "redactor"}, forbid: stripe, server: &refused, calls: []behaviourCall{
		{session: "both", tool: "read_file", args: env, result: stripe},
		{session: "both", tool: "run_query", args: map[string]any{"sql": "INSERT INTO notes VALUES ('" + stripe + "')"}},
	}})
	return fs
}

// TestFixturesBehaviourSendingSide plays each scenario through
// Chain.Run, as an agent's client would: each request sent (mutate, then
// validate) and each result received (validate, then mutate), in the
// scenario's session.
func TestFixturesBehaviourSendingSide(t *testing.T) {
	for _, f := range behaviourFixtures() {
		t.Run(f.id, func(t *testing.T) {
			ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{behaviourRoster(t, f.roster...)}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ch.Close() })
			for i, c := range f.calls {
				ictx := &wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalAnonymous}, SessionID: c.session}
				req, err := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": c.tool, "arguments": c.args}})
				if err != nil {
					t.Fatal(err)
				}
				p, err := ch.Run(context.Background(), intercept.Send, intercept.Call{Event: "tools/call", Phase: wire.Request, Payload: req, Context: ictx})
				var blocked *intercept.BlockedError
				if denied := errors.As(err, &blocked); denied != c.deny {
					t.Fatalf("call %d (%s): denied %v (%v), want %v", i, c.tool, denied, err, c.deny)
				}
				if c.deny {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if f.forbid != "" && strings.Contains(string(p.Payload), f.forbid) {
					t.Errorf("call %d (%s): %s leaves with the secret", i, c.tool, p.Payload)
				}
				if c.result == "" {
					continue
				}
				res, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: c.result}}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ch.Run(context.Background(), intercept.Receive, intercept.Call{Event: "tools/call", Phase: wire.Response, Payload: res, Context: ictx}); err != nil {
					t.Fatalf("call %d (%s): receiving its result: %v", i, c.tool, err)
				}
			}
		})
	}
}

// TestFixturesBehaviourServerSide plays each scenario against a hookflow
// server in front of both upstreams' tools, over streamable HTTP so that
// each scenario session is an MCP session of its own (the invocation
// context's sessionId is its SHA-256). A refused call is a tool error;
// an allowed one reaches the tool, which must not get the forbidden
// value.
func TestFixturesBehaviourServerSide(t *testing.T) {
	for _, f := range behaviourFixtures() {
		t.Run(f.id, func(t *testing.T) {
			files := map[string]string{}
			for _, c := range f.calls {
				if c.result != "" {
					files[c.args["path"].(string)] = c.result
				}
			}
			var (
				mu  sync.Mutex
				got []string // the arguments the tools received
			)
			srv := framework.NewServer(&mcp.Implementation{Name: "upstreams"}, nil)
			for _, tool := range []string{"read_file", "write_file", "run_query"} {
				if err := framework.AddToolFunc(srv, &mcp.Tool{Name: tool}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (map[string]any, error) {
					b, _ := json.Marshal(in)
					mu.Lock()
					got = append(got, string(b))
					mu.Unlock()
					if tool == "read_file" {
						path, _ := in["path"].(string)
						return map[string]any{"text": files[path]}, nil
					}
					return map[string]any{"ok": true}, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			p := intercept.New(intercept.Config{Servers: []intercept.Server{behaviourRoster(t, f.roster...)}})
			t.Cleanup(func() { p.Close() })
			if err := srv.Use(p); err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			h, err := srv.HTTPHandler(nil)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			sessions := map[string]*mcp.ClientSession{}
			for i, c := range f.calls {
				cs, ok := sessions[c.session]
				if !ok {
					cs, err = mcp.NewClient(&mcp.Implementation{Name: c.session}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { cs.Close() })
					sessions[c.session] = cs
				}
				want := c.deny
				if f.server != nil && i == len(f.calls)-1 {
					want = *f.server
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError != want {
					t.Fatalf("call %d (%s): refused %v, want %v: %+v", i, c.tool, res.IsError, want, res.Content)
				}
			}
			if f.forbid == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, args := range got {
				if strings.Contains(args, f.forbid) {
					t.Errorf("a tool got the secret: %s", args)
				}
			}
		})
	}
}
