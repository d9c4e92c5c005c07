package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
	"github.com/hookflow/hookflow/stages"
)

// memory is a test server: its tools serve as context tools, and it
// counts their calls.
type memory struct {
	calls   atomic.Int32
	release chan struct{} // ends the calls of "stall"
}

type queryIn struct {
	Query string `json:"query,omitempty"`
}

func (m *memory) server(t testing.TB, name string, decls []declared.Declaration) *framework.Server {
	t.Helper()
	if m.release == nil {
		m.release = make(chan struct{})
	}
	srv := framework.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	tools := []struct {
		name string
		fn   func(context.Context, *mcp.CallToolRequest, queryIn) (*mcp.CallToolResult, error)
	}{
		{"recall", func(_ context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "memories of " + in.Query}, &mcp.TextContent{Text: "(2 found)"}}}, nil
		}},
		{"forget", func(context.Context, *mcp.CallToolRequest, queryIn) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the store is down"}}}, nil
		}},
		{"nothing", func(context.Context, *mcp.CallToolRequest, queryIn) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		}},
		{"stall", func(ctx context.Context, _ *mcp.CallToolRequest, _ queryIn) (*mcp.CallToolResult, error) {
			// Until the test ends: over HTTP on protocols before 2026-07-28
			// a client giving up does not cancel the call.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-m.release:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "too late"}}}, nil
			}
		}},
	}
	for _, tl := range tools {
		fn := tl.fn
		err := framework.AddToolFunc(srv, &mcp.Tool{Name: tl.name, Description: tl.name}, func(ctx context.Context, r *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, error) {
			m.calls.Add(1)
			return fn(ctx, r, in)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Use(declared.New(declared.Config{Declarations: decls})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	return srv
}

type transport struct {
	name    string
	connect func(t testing.TB, srv *framework.Server) *mcp.ClientSession
}

var transports = []transport{
	{"in-memory", func(t testing.TB, srv *framework.Server) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		return connect(t, ct)
	}},
	{"http", func(t testing.TB, srv *framework.Server) *mcp.ClientSession {
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		return connect(t, &mcp.StreamableClientTransport{Endpoint: hs.URL})
	}},
}

// forEachTransport runs test over each transport.
func forEachTransport(t *testing.T, test func(*testing.T, transport)) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { test(t, tr) })
	}
}

func connect(t testing.TB, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	caps := declared.DeclareSupport(nil, declared.Events()...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// recorder collects audit records.
type recorder struct {
	mu   sync.Mutex
	recs []client.Record
}

func (r *recorder) add(rec client.Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

// take returns the records since the last take, as strings.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		out = append(out, rec.String())
	}
	r.recs = nil
	return out
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newHooks(t testing.TB, cfg client.Config) (*client.Hooks, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg.Audit = rec.add
	h, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h, rec
}

func texts(injs []client.Injection) []string {
	var out []string
	for _, i := range injs {
		out = append(out, fmt.Sprintf("%s#%d %s: %s", i.Server, i.Index, i.Priority, i.Text))
	}
	return out
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

var (
	bashCommit = &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"git commit -m fix"}`), Output: json.RawMessage(`{"stdout":"1 file changed"}`)}
	bashLs     = &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
)

// TestEveryEvent: each of the six events fires its declarations through a
// real server, over each transport; a context tool's text comes from the
// server.
func TestEveryEvent(t *testing.T) {
	decls := []declared.Declaration{
		{Event: declared.SessionStart, ContextTool: "recall", ContextToolArgs: json.RawMessage(`{"query":"{project_name}"}`), Priority: declared.Important},
		{Event: declared.SessionEnd, Context: "store what you learned", Priority: declared.Suggestion},
		{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "careful with {tool_input}", Priority: declared.Required},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}, Context: "you committed", Priority: declared.Suggestion},
		{Event: declared.PreRequest, Context: "before the turn", Priority: declared.Suggestion},
		{Event: declared.PostRequest, Context: "after the turn", Priority: declared.Suggestion},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			m := &memory{}
			cs := tr.connect(t, m.server(t, "memory", decls))
			h, rec := newHooks(t, client.Config{Project: "shop", Trust: map[string]client.Trust{"memory": client.FullyTrusted}})
			if err := h.Add(context.Background(), "memory", cs); err != nil {
				t.Fatal(err)
			}
			eq(t, "records at Add", rec.take(), []string{
				"memory#0 session_start important accepted",
				"memory#1 session_end suggestion accepted",
				"memory#2 pre_tool_use required accepted",
				"memory#3 post_tool_use suggestion accepted",
				"memory#4 pre_request suggestion accepted",
				"memory#5 post_request suggestion accepted",
			})
			tests := []struct {
				f    client.Firing
				want []string
			}{
				{client.Firing{Event: declared.SessionStart}, []string{"memory#0 important: memories of shop\n(2 found)"}},
				{client.Firing{Event: declared.PreRequest}, []string{"memory#4 suggestion: before the turn"}},
				{client.Firing{Event: declared.PreToolUse, Tool: bashLs}, []string{`memory#2 required: careful with {"command":"ls"}`}},
				{client.Firing{Event: declared.PostToolUse, Tool: bashLs}, nil},
				{client.Firing{Event: declared.PostToolUse, Tool: bashCommit}, []string{"memory#3 suggestion: you committed"}},
				{client.Firing{Event: declared.PreToolUse, Tool: &declared.ToolCall{Name: "Edit"}}, nil},
				{client.Firing{Event: declared.PostRequest}, []string{"memory#5 suggestion: after the turn"}},
				{client.Firing{Event: declared.SessionEnd}, []string{"memory#1 suggestion: store what you learned"}},
			}
			for _, tt := range tests {
				eq(t, "injections at "+tt.f.Event.String(), texts(h.Fire(context.Background(), tt.f)), tt.want)
			}
			if n := m.calls.Load(); n != 1 {
				t.Errorf("context tool called %d times, want 1", n)
			}
		})
	}
}

// TestTemplates: every variable, in static text and in tool arguments;
// unknown and valueless variables stay as written.
func TestTemplates(t *testing.T) { forEachTransport(t, testTemplates) }

func testTemplates(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.PostToolUse, Context: "{project_name}|{session_id}|{tool_name}|{tool_input}|{tool_output}|{branch}", Priority: declared.Suggestion},
		{Event: declared.PreToolUse, Context: "{tool_name} before: {tool_output}", Priority: declared.Suggestion},
		{Event: declared.SessionStart, Context: "{session_id} {tool_name}", Priority: declared.Suggestion},
		{Event: declared.PreRequest, ContextTool: "recall", ContextToolArgs: json.RawMessage(`{"query":"{project_name}/{session_id}/{nope}"}`), Priority: declared.Suggestion},
	}
	m := &memory{}
	cs := tr.connect(t, m.server(t, "memory", decls))
	h, _ := newHooks(t, client.Config{Project: "shop", Trust: map[string]client.Trust{"memory": client.Trusted}})
	if err := h.Add(context.Background(), "memory", cs); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eq(t, "post_tool_use", texts(h.Fire(ctx, client.Firing{Event: declared.PostToolUse, SessionID: "s1", Tool: bashCommit})),
		[]string{`memory#0 suggestion: shop|s1|Bash|{"command":"git commit -m fix"}|{"stdout":"1 file changed"}|{branch}`})
	eq(t, "pre_tool_use", texts(h.Fire(ctx, client.Firing{Event: declared.PreToolUse, SessionID: "s1", Tool: bashLs})),
		[]string{"memory#1 suggestion: Bash before: {tool_output}"})
	eq(t, "session_start", texts(h.Fire(ctx, client.Firing{Event: declared.SessionStart, SessionID: "s1"})),
		[]string{"memory#2 suggestion: s1 {tool_name}"})
	eq(t, "pre_request", texts(h.Fire(ctx, client.Firing{Event: declared.PreRequest, SessionID: "s1"})),
		[]string{"memory#3 suggestion: memories of shop/s1/{nope}\n(2 found)"})
}

// TestMatchers: tool_name, input_contains and tool_server, alone and
// together, against tools of the host's servers and of the agent.
func TestMatchers(t *testing.T) { forEachTransport(t, testMatchers) }

func testMatchers(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "get_*"}, Context: "name", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{InputContains: "Paris"}, Context: "input", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolServer: "weather"}, Context: "server", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "get_weather", InputContains: "Paris", ToolServer: "weather"}, Context: "all", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Context: "any", Priority: declared.Suggestion},
	}
	m := &memory{}
	cs := tr.connect(t, m.server(t, "memory", decls))
	h, _ := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}})
	if err := h.Add(context.Background(), "memory", cs); err != nil {
		t.Fatal(err)
	}
	only := func(injs []client.Injection) []string {
		var out []string
		for _, i := range injs {
			out = append(out, i.Text)
		}
		return out
	}
	tests := []struct {
		name string
		call declared.ToolCall
		want []string
	}{
		{"everything matches", declared.ToolCall{Server: "weather", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}, []string{"name", "input", "server", "all", "any"}},
		{"other city", declared.ToolCall{Server: "weather", Name: "get_weather", Input: json.RawMessage(`{"city":"Rome"}`)}, []string{"name", "server", "any"}},
		{"other server", declared.ToolCall{Server: "maps", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}, []string{"name", "input", "any"}},
		{"agent's name for the tool", declared.ToolCall{Name: "mcp__weather__get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}, []string{"name", "input", "server", "all", "any"}},
		{"built-in tool", declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}, []string{"any"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eq(t, "texts", only(h.Fire(context.Background(), client.Firing{Event: declared.PostToolUse, Tool: &tt.call})), tt.want)
		})
	}
}

// TestTrust: an untrusted server's declarations never fire and its tools
// are never called; a trusted server's required declarations fire as
// important; a fully trusted server's as required.
func TestTrust(t *testing.T) { forEachTransport(t, testTrust) }

func testTrust(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.SessionStart, ContextTool: "recall", Priority: declared.Required},
		{Event: declared.SessionStart, Context: "static", Priority: declared.Suggestion},
	}
	tests := []struct {
		trust client.Trust
		add   []string
		fire  []string
		calls int32
	}{
		{client.Untrusted,
			[]string{"memory#0 session_start required ignored", "memory#1 session_start suggestion ignored"},
			nil, 0},
		{client.Trusted,
			[]string{"memory#0 session_start important (declared required) accepted", "memory#1 session_start suggestion accepted"},
			[]string{"memory#0 important: memories of \n(2 found)", "memory#1 suggestion: static"}, 1},
		{client.FullyTrusted,
			[]string{"memory#0 session_start required accepted", "memory#1 session_start suggestion accepted"},
			[]string{"memory#0 required: memories of \n(2 found)", "memory#1 suggestion: static"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.trust.String(), func(t *testing.T) {
			m := &memory{}
			cs := tr.connect(t, m.server(t, "memory", decls))
			cfg := client.Config{}
			if tt.trust != client.Untrusted {
				cfg.Trust = map[string]client.Trust{"memory": tt.trust}
			}
			h, rec := newHooks(t, cfg)
			if err := h.Add(context.Background(), "memory", cs); err != nil {
				t.Fatal(err)
			}
			eq(t, "records at Add", rec.take(), tt.add)
			eq(t, "injections", texts(h.Fire(context.Background(), client.Firing{Event: declared.SessionStart})), tt.fire)
			if n := m.calls.Load(); n != tt.calls {
				t.Errorf("context tool called %d times, want %d", n, tt.calls)
			}
		})
	}
}

// TestApproval: the callback sees each valid declaration of a trusted
// server once, with the priority it would fire with; refused ones never
// fire.
func TestApproval(t *testing.T) { forEachTransport(t, testApproval) }

func testApproval(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.PreRequest, Context: "one", Priority: declared.Required},
		{Event: declared.PreRequest, Context: "two", Priority: declared.Suggestion},
	}
	m := &memory{}
	cs := tr.connect(t, m.server(t, "memory", decls))
	var asked []string
	h, rec := newHooks(t, client.Config{
		Trust: map[string]client.Trust{"memory": client.Trusted},
		Approve: func(_ context.Context, p client.Proposal) bool {
			asked = append(asked, fmt.Sprintf("%s#%d %s %s", p.Server, p.Index, p.Priority, p.Declaration.Context))
			return p.Priority != declared.Important
		},
	})
	if err := h.Add(context.Background(), "memory", cs); err != nil {
		t.Fatal(err)
	}
	eq(t, "asked", asked, []string{"memory#0 important one", "memory#1 suggestion two"})
	eq(t, "records", rec.take(), []string{
		"memory#0 pre_request important (declared required) not-approved",
		"memory#1 pre_request suggestion accepted",
	})
	eq(t, "injections", texts(h.Fire(context.Background(), client.Firing{Event: declared.PreRequest})), []string{"memory#1 suggestion: two"})
}

// TestLimits: MaxDeclarations per server, MaxPerEvent and MaxBytes per
// event, in priority order across servers.
func TestLimits(t *testing.T) { forEachTransport(t, testLimits) }

func testLimits(t *testing.T, tr transport) {
	ctx := context.Background()
	a := []declared.Declaration{
		{Event: declared.PreRequest, Context: "a0-suggestion", Priority: declared.Suggestion},
		{Event: declared.PreRequest, Context: "a1-important", Priority: declared.Important},
		{Event: declared.PreRequest, Context: "a2-over-the-limit", Priority: declared.Important},
	}
	b := []declared.Declaration{
		{Event: declared.PreRequest, Context: "b0-required", Priority: declared.Required},
		{Event: declared.PreRequest, Context: "b1-suggestion", Priority: declared.Suggestion},
	}
	m := &memory{}
	csA := tr.connect(t, m.server(t, "a", a))
	csB := tr.connect(t, m.server(t, "b", b))
	h, rec := newHooks(t, client.Config{
		Trust:           map[string]client.Trust{"a": client.Trusted, "b": client.FullyTrusted},
		MaxDeclarations: 2,
		MaxPerEvent:     3,
		MaxBytes:        len("b0-required") + len("a1-important") + 4,
	})
	if err := h.Add(ctx, "a", csA); err != nil {
		t.Fatal(err)
	}
	if err := h.Add(ctx, "b", csB); err != nil {
		t.Fatal(err)
	}
	eq(t, "records at Add", rec.take(), []string{
		"a#0 pre_request suggestion accepted",
		"a#1 pre_request important accepted",
		"a#2 pre_request important over-limit",
		"b#0 pre_request required accepted",
		"b#1 pre_request suggestion accepted",
	})
	injs := h.Fire(ctx, client.Firing{Event: declared.PreRequest})
	eq(t, "injections", texts(injs), []string{"b#0 required: b0-required", "a#1 important: a1-important", "a#0 suggestion: a0-s"})
	if !injs[2].Truncated || injs[0].Truncated {
		t.Errorf("truncation flags: %+v", injs)
	}
	eq(t, "records at Fire", rec.take(), []string{
		"b#0 pre_request required injected 11B",
		"a#1 pre_request important injected 12B",
		"a#0 pre_request suggestion truncated 4B",
		"b#1 pre_request suggestion cap-exceeded",
	})
}

// TestMaxBytesCharacterBoundary: a cut never splits a character, and a
// text that cannot keep one character is dropped.
func TestMaxBytesCharacterBoundary(t *testing.T) {
	decls := []declared.Declaration{
		{Event: declared.PreRequest, Context: "ab", Priority: declared.Important},
		{Event: declared.PreRequest, Context: "éé", Priority: declared.Suggestion},
	}
	for _, tt := range []struct {
		max  int
		want []string
	}{
		{3, []string{"memory#0 important: ab"}},
		{4, []string{"memory#0 important: ab", "memory#1 suggestion: é"}},
		{5, []string{"memory#0 important: ab", "memory#1 suggestion: é"}},
		{6, []string{"memory#0 important: ab", "memory#1 suggestion: éé"}},
	} {
		m := &memory{}
		cs := transports[0].connect(t, m.server(t, "memory", decls))
		h, _ := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, MaxBytes: tt.max})
		if err := h.Add(context.Background(), "memory", cs); err != nil {
			t.Fatal(err)
		}
		eq(t, fmt.Sprintf("MaxBytes %d", tt.max), texts(h.Fire(context.Background(), client.Firing{Event: declared.PreRequest})), tt.want)
	}
}

// TestCooldownAndRate: per declaration, on the host's clock.
func TestCooldownAndRate(t *testing.T) { forEachTransport(t, testCooldownAndRate) }

func testCooldownAndRate(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "bash", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Context: "any", Priority: declared.Suggestion},
	}
	fire := func(h *client.Hooks) []string {
		var out []string
		for _, i := range h.Fire(context.Background(), client.Firing{Event: declared.PostToolUse, Tool: bashLs}) {
			out = append(out, i.Text)
		}
		return out
	}
	t.Run("cooldown", func(t *testing.T) {
		clk := &clock{t: time.Unix(1000, 0)}
		m := &memory{}
		cs := tr.connect(t, m.server(t, "memory", decls))
		h, rec := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, Cooldown: time.Minute, Now: clk.now})
		if err := h.Add(context.Background(), "memory", cs); err != nil {
			t.Fatal(err)
		}
		rec.take()
		eq(t, "first", fire(h), []string{"bash", "any"})
		clk.advance(59 * time.Second)
		eq(t, "within the cooldown", fire(h), nil)
		eq(t, "records", rec.take()[2:], []string{"memory#0 post_tool_use suggestion cooled-down", "memory#1 post_tool_use suggestion cooled-down"})
		clk.advance(time.Second)
		eq(t, "after it", fire(h), []string{"bash", "any"})
	})
	t.Run("rate", func(t *testing.T) {
		clk := &clock{t: time.Unix(1000, 0)}
		m := &memory{}
		cs := tr.connect(t, m.server(t, "memory", decls))
		h, rec := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, Rate: client.Rate{Events: 2, Per: time.Minute}, Now: clk.now})
		if err := h.Add(context.Background(), "memory", cs); err != nil {
			t.Fatal(err)
		}
		eq(t, "1st", fire(h), []string{"bash", "any"})
		clk.advance(10 * time.Second)
		eq(t, "2nd", fire(h), []string{"bash", "any"})
		clk.advance(10 * time.Second)
		rec.take()
		eq(t, "3rd within the minute", fire(h), nil)
		eq(t, "records", rec.take(), []string{"memory#0 post_tool_use suggestion rate-limited", "memory#1 post_tool_use suggestion rate-limited"})
		clk.advance(40 * time.Second) // a minute after the 1st
		eq(t, "a minute after the 1st", fire(h), []string{"bash", "any"})
		eq(t, "but not after the 2nd", fire(h), nil)
	})
	t.Run("removed server forgets", func(t *testing.T) {
		clk := &clock{t: time.Unix(1000, 0)}
		m := &memory{}
		srv := m.server(t, "memory", decls)
		h, _ := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, Cooldown: time.Hour, Now: clk.now})
		if err := h.Add(context.Background(), "memory", tr.connect(t, srv)); err != nil {
			t.Fatal(err)
		}
		eq(t, "first", fire(h), []string{"bash", "any"})
		if !h.Remove("memory") || h.Remove("memory") {
			t.Fatal("Remove did not report the server once")
		}
		if err := h.Add(context.Background(), "memory", tr.connect(t, srv)); err != nil {
			t.Fatal(err)
		}
		eq(t, "added again", fire(h), []string{"bash", "any"})
	})
}

// TestContextToolFailures: an isError result, an empty result and a tool
// that does not answer within ToolTimeout inject nothing and are audited;
// the other declarations of the event still fire.
func TestContextToolFailures(t *testing.T) {
	decls := []declared.Declaration{
		{Event: declared.SessionStart, ContextTool: "forget", Priority: declared.Important},
		{Event: declared.SessionStart, ContextTool: "nothing", Priority: declared.Important},
		{Event: declared.SessionStart, ContextTool: "stall", Priority: declared.Important},
		{Event: declared.SessionStart, Context: "still here", Priority: declared.Suggestion},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			m := &memory{}
			cs := tr.connect(t, m.server(t, "memory", decls))
			t.Cleanup(func() { close(m.release) }) // before the server closes
			h, rec := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, ToolTimeout: 50 * time.Millisecond})
			if err := h.Add(context.Background(), "memory", cs); err != nil {
				t.Fatal(err)
			}
			rec.take()
			eq(t, "injections", texts(h.Fire(context.Background(), client.Firing{Event: declared.SessionStart})), []string{"memory#3 suggestion: still here"})
			eq(t, "records", rec.take(), []string{
				`memory#0 session_start important tool-failed: context_tool "forget" returned an error: the store is down`,
				"memory#1 session_start important empty",
				`memory#2 session_start important tool-failed: context_tool "stall": no result within 50ms`,
				"memory#3 session_start suggestion injected 10B",
			})
		})
	}
}

// TestInvalidDeclarations: what a server sends that breaks the schema is
// audited as invalid and never fires; the rest of its list still does.
func TestInvalidDeclarations(t *testing.T) { forEachTransport(t, testInvalidDeclarations) }

func testInvalidDeclarations(t *testing.T, tr transport) {
	srv := framework.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	err := srv.Hook(flows.On(stages.AfterExecute, func(c flows.Initialize) error {
		c.AddExperimental("hooks", map[string]any{"declarations": []any{
			map[string]any{"event": "session_start", "context": "fine", "priority": "suggestion"},
			map[string]any{"event": "on_commit", "context": "newer event", "priority": "suggestion"},
			map[string]any{"event": "session_start", "context": "x", "context_tool": "y", "priority": "important"},
			"not an object",
		}})
		return nil
	}).Named("raw"))
	if err != nil {
		t.Fatal(err)
	}
	cs := tr.connect(t, srv)
	h, rec := newHooks(t, client.Config{Trust: map[string]client.Trust{"raw": client.FullyTrusted}})
	if err := h.Add(context.Background(), "raw", cs); err != nil {
		t.Fatal(err)
	}
	eq(t, "records", rec.take(), []string{
		"raw#0 session_start suggestion accepted",
		`raw#1 ? invalid: declaration 1: unknown event "on_commit" (events: session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request)`,
		"raw#2 session_start invalid: declaration 2: context and context_tool are mutually exclusive: set one",
		"raw#3 ? invalid: declaration 3: json: cannot unmarshal string into Go value of type declared.Declaration",
	})
	eq(t, "injections", texts(h.Fire(context.Background(), client.Firing{Event: declared.SessionStart})), []string{"raw#0 suggestion: fine"})
}

// TestAddErrors: a name added twice, and a session without declarations.
func TestAddErrors(t *testing.T) {
	m := &memory{}
	srv := m.server(t, "memory", nil)
	h, rec := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}})
	if err := h.Add(context.Background(), "memory", transports[0].connect(t, srv)); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("records for a server without declarations: %q", got)
	}
	if err := h.Add(context.Background(), "memory", transports[0].connect(t, srv)); err == nil || !strings.Contains(err.Error(), "already added") {
		t.Errorf("second Add = %v", err)
	}
	if err := h.Add(context.Background(), "x", nil); err == nil {
		t.Error("Add(nil session) succeeded")
	}
	if _, err := client.New(client.Config{Rate: client.Rate{Events: 3}}); err == nil || !strings.Contains(err.Error(), "Config.Rate needs both") {
		t.Errorf("New with half a rate = %v", err)
	}
	if _, err := client.New(client.Config{MaxBytes: -1}); err == nil || !strings.Contains(err.Error(), "Config.MaxBytes must not be negative") {
		t.Errorf("New with a negative cap = %v", err)
	}
}

// TestConcurrentFire: Fire from many goroutines, with a cooldown shared by
// all, fires each declaration exactly once. Run with -race.
func TestConcurrentFire(t *testing.T) { forEachTransport(t, testConcurrentFire) }

func testConcurrentFire(t *testing.T, tr transport) {
	decls := []declared.Declaration{
		{Event: declared.PreRequest, Context: "once", Priority: declared.Suggestion},
		{Event: declared.PreRequest, ContextTool: "recall", Priority: declared.Suggestion},
	}
	m := &memory{}
	cs := tr.connect(t, m.server(t, "memory", decls))
	h, _ := newHooks(t, client.Config{Trust: map[string]client.Trust{"memory": client.Trusted}, Cooldown: time.Hour})
	if err := h.Add(context.Background(), "memory", cs); err != nil {
		t.Fatal(err)
	}
	var injected atomic.Int32
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			injected.Add(int32(len(h.Fire(context.Background(), client.Firing{Event: declared.PreRequest}))))
		}()
	}
	wg.Wait()
	if n := injected.Load(); n != 2 {
		t.Errorf("%d injections, want 2", n)
	}
	if n := m.calls.Load(); n != 1 {
		t.Errorf("context tool called %d times, want 1", n)
	}
}
