package sessiongate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/sessiongate"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

type in struct {
	Fail bool `json:"fail,omitempty"`
}

// outcome is what a finally hook saw of one call.
type outcome struct {
	tool        string
	decidedBy   string
	blocked     *sessiongate.BlockedError
	transitions []string
}

// gated is a server with the gate and the tools session_init, check_ready,
// work, other (gated when listed so) and free, plus an app whose tool
// stands for one the gateway mounts; it records every call's outcome.
type gated struct {
	srv  *framework.Server
	gate *sessiongate.Plugin

	mu       sync.Mutex
	outcomes []outcome
	moves    []sessiongate.Transition
}

func newGated(t *testing.T, cfg sessiongate.Config) *gated {
	t.Helper()
	g := &gated{}
	cfg.OnTransition = func(tr sessiongate.Transition) {
		g.mu.Lock()
		g.moves = append(g.moves, tr)
		g.mu.Unlock()
	}
	g.gate = sessiongate.New(cfg)
	g.srv = framework.NewServer(&mcp.Implementation{Name: "gated", Version: "1"}, nil)
	tool := func(r framework.Registrar, name string) error {
		return framework.AddToolFunc(r, &mcp.Tool{Name: name}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, error) {
			if in.Fail {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: name + " failed"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ok"}}}, nil
		})
	}
	upstream, err := g.srv.App("upstream")
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(
		tool(g.srv, "session_init"), tool(g.srv, "check_ready"), tool(g.srv, "work"), tool(g.srv, "other"), tool(g.srv, "free"),
		tool(upstream, "upstream_search"),
		g.srv.Use(g.gate),
		g.srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Priority: priority.Min, Name: "outcome", Fn: func(c *flows.Context) error {
			o := outcome{tool: c.Entity().Name, decidedBy: c.DecidedBy()}
			errors.As(c.Err(), &o.blocked)
			for _, tr := range g.gate.Transitions(c) {
				o.transitions = append(o.transitions, tr.String())
			}
			g.mu.Lock()
			g.outcomes = append(g.outcomes, o)
			g.mu.Unlock()
			return nil
		}}),
		g.srv.Start(),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.gate.Check(); err != nil {
		t.Fatal(err)
	}
	return g
}

// last returns the outcome of the last call.
func (g *gated) last() outcome {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.outcomes[len(g.outcomes)-1]
}

// step is one call of a scenario and what the model must read.
type step struct {
	tool    string
	fail    bool
	isError bool
	texts   []string
	moves   []string // the call's transitions
}

const decider = "gated/plugin:sessiongate/tools:call-tool/beforeValidation/check"

func blockedInit(tool string) string {
	return fmt.Sprintf("Tool %q requires session initialization. You MUST call session_init first before using any other tools. This is a MANDATORY first action.", tool)
}

// run plays steps on one client session.
func (g *gated) run(t *testing.T, cs *mcp.ClientSession, steps []step) {
	t.Helper()
	for i, s := range steps {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: s.tool, Arguments: in{Fail: s.fail}})
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.tool, err)
		}
		var texts []string
		for _, c := range res.Content {
			texts = append(texts, c.(*mcp.TextContent).Text)
		}
		if res.IsError != s.isError || !slices.Equal(texts, s.texts) {
			t.Errorf("step %d (%s): isError=%v %q, want isError=%v %q", i, s.tool, res.IsError, texts, s.isError, s.texts)
		}
		o := g.last()
		if blocked := s.isError && !s.fail; blocked != (o.blocked != nil) || blocked && o.decidedBy != decider || !blocked && o.decidedBy != "" {
			t.Errorf("step %d (%s): decided by %q (blocked: %v)", i, s.tool, o.decidedBy, o.blocked)
		}
		if !slices.Equal(o.transitions, s.moves) {
			t.Errorf("step %d (%s): transitions %q, want %q", i, s.tool, o.transitions, s.moves)
		}
	}
}

func connect(t *testing.T, srv *framework.Server) *mcp.ClientSession {
	t.Helper()
	return plugintest.ConnectServer(t, srv)
}

// TestStates walks a session through every state with a ready tool:
// blocked calls name the tool to call first, failed calls move nothing,
// each successful step is recorded once and tells the model what next.
func TestStates(t *testing.T) {
	g := newGated(t, sessiongate.Config{ReadyTool: "check_ready", Requires: []string{"work", "upstream_search"}})
	cs := connect(t, g.srv)
	readyFirst := `Tool "work" requires a ready session. You MUST call check_ready first, then call "work" again.`
	g.run(t, cs, []step{
		{tool: "work", isError: true, texts: []string{blockedInit("work")}},
		{tool: "upstream_search", isError: true, texts: []string{blockedInit("upstream_search")}},
		{tool: "free", texts: []string{"free ok"}},
		{tool: "check_ready", isError: true, texts: []string{blockedInit("check_ready")}},
		{tool: "session_init", fail: true, isError: true, texts: []string{"session_init failed"}},
		{tool: "work", isError: true, texts: []string{blockedInit("work")}},
		{tool: "session_init", texts: []string{"session_init ok", "The session is initialized. You MUST call check_ready next, before using the other tools."},
			moves: []string{"session_init: uninitialized → initialized"}},
		{tool: "work", isError: true, texts: []string{readyFirst}},
		{tool: "session_init", texts: []string{"session_init ok"}},
		{tool: "check_ready", fail: true, isError: true, texts: []string{"check_ready failed"}},
		{tool: "check_ready", texts: []string{"check_ready ok", "The session is ready: you may now use the other tools."},
			moves: []string{"check_ready: initialized → ready"}},
		{tool: "work", fail: true, isError: true, texts: []string{"work failed"}},
		{tool: "upstream_search", texts: []string{"upstream_search ok"}, moves: []string{"upstream_search: ready → working"}},
		{tool: "work", texts: []string{"work ok"}},
		{tool: "other", texts: []string{"other ok"}},
	})
	// Another session starts over.
	g.run(t, connect(t, g.srv), []step{
		{tool: "work", isError: true, texts: []string{blockedInit("work")}},
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	var got []string
	for _, tr := range g.moves {
		got = append(got, tr.String())
		if tr.Key == "" || tr.Request == "" {
			t.Errorf("transition %+v lacks its key or request", tr)
		}
	}
	want := []string{"session_init: uninitialized → initialized", "check_ready: initialized → ready", "upstream_search: ready → working"}
	if !slices.Equal(got, want) {
		t.Errorf("OnTransition saw %q, want %q", got, want)
	}
}

// TestInitMakesReady: without a ready tool the init tool makes the session
// ready in one call (two transitions); RequireAll gates every tool but the
// init tool and the exempt ones.
func TestInitMakesReady(t *testing.T) {
	g := newGated(t, sessiongate.Config{RequireAll: true, Exempt: []string{"free"}})
	g.run(t, connect(t, g.srv), []step{
		{tool: "other", isError: true, texts: []string{blockedInit("other")}},
		{tool: "upstream_search", isError: true, texts: []string{blockedInit("upstream_search")}},
		{tool: "free", texts: []string{"free ok"}},
		{tool: "session_init", texts: []string{"session_init ok", "The session is ready: you may now use the other tools."},
			moves: []string{"session_init: uninitialized → initialized", "session_init: initialized → ready"}},
		{tool: "other", texts: []string{"other ok"}, moves: []string{"other: ready → working"}},
		{tool: "upstream_search", texts: []string{"upstream_search ok"}},
	})
}

// TestCustomTexts: Blocked and Next word the directives.
func TestCustomTexts(t *testing.T) {
	g := newGated(t, sessiongate.Config{InitTool: "check_ready", Requires: []string{"work"},
		Blocked: func(b sessiongate.Block) string {
			return "call " + b.Call + " before " + b.Tool + " (" + b.State.String() + ")"
		},
		Next: func(tr sessiongate.Transition, _ *sessiongate.Config) string { return "now " + tr.To.String() },
	})
	g.run(t, connect(t, g.srv), []step{
		{tool: "work", isError: true, texts: []string{"call check_ready before work (uninitialized)"}},
		{tool: "session_init", texts: []string{"session_init ok"}},
		{tool: "check_ready", texts: []string{"check_ready ok", "now initialized", "now ready"},
			moves: []string{"check_ready: uninitialized → initialized", "check_ready: initialized → ready"}},
		{tool: "work", texts: []string{"work ok", "now working"}, moves: []string{"work: ready → working"}},
	})
}

// TestConcurrentInit: many concurrent init calls in one session move it
// once; concurrent sessions are independent.
func TestConcurrentInit(t *testing.T) {
	for _, store := range stores(t) {
		t.Run(store.name, func(t *testing.T) {
			g := newGated(t, sessiongate.Config{Requires: []string{"work"}, Store: store.store})
			var wg sync.WaitGroup
			for range 4 {
				cs := connect(t, g.srv)
				for range 10 {
					wg.Go(func() {
						res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "session_init", Arguments: map[string]any{}})
						if err != nil || res.IsError {
							t.Errorf("init: %v %v", res, err)
						}
					})
				}
			}
			wg.Wait()
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.moves) != 8 {
				t.Errorf("%d transitions, want 2 per session: %v", len(g.moves), g.moves)
			}
		})
	}
}

// TestUnlist: with Unlist, gated tools leave tools/list until the session
// needs them no more, and stay callable.
func TestUnlist(t *testing.T) {
	g := newGated(t, sessiongate.Config{ReadyTool: "check_ready", Requires: []string{"work"}, Unlist: true})
	cs := connect(t, g.srv)
	list := func() []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	if got := strings.Join(list(), ","); got != "free,other,session_init,upstream_search" {
		t.Errorf("uninitialized: %s", got)
	}
	g.run(t, cs, []step{{tool: "work", isError: true, texts: []string{blockedInit("work")}}})
	g.run(t, cs, []step{{tool: "session_init", texts: []string{"session_init ok", "The session is initialized. You MUST call check_ready next, before using the other tools."},
		moves: []string{"session_init: uninitialized → initialized"}}})
	if got := strings.Join(list(), ","); got != "check_ready,free,other,session_init,upstream_search" {
		t.Errorf("initialized: %s", got)
	}
	g.run(t, cs, []step{{tool: "check_ready", texts: []string{"check_ready ok", "The session is ready: you may now use the other tools."},
		moves: []string{"check_ready: initialized → ready"}}})
	if got := strings.Join(list(), ","); got != "check_ready,free,other,session_init,upstream_search,work" {
		t.Errorf("ready: %s", got)
	}
	// Lists depend on the caller only while the gate unlists.
	for _, unlist := range []bool{false, true} {
		g := newGated(t, sessiongate.Config{Requires: []string{"work"}, Unlist: unlist})
		res, err := connect(t, g.srv).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if private := res.CacheScope == "private"; private != unlist {
			t.Errorf("Unlist %v: cacheScope %q", unlist, res.CacheScope)
		}
	}
}

// The shared checks, gating a tool the checks do not call.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return sessiongate.New(sessiongate.Config{Requires: []string{"not_a_test_tool"}})
	}, nil)
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  sessiongate.Config
		want string
	}{
		{sessiongate.Config{}, "no tool is gated: set requires or require_all"},
		{sessiongate.Config{Requires: []string{"a", ""}}, "requires[1]: a tool name is empty"},
		{sessiongate.Config{Requires: []string{"session_init"}}, `requires[0]: "session_init" is the init tool, which is never gated`},
		{sessiongate.Config{Requires: []string{"a"}, ReadyTool: "session_init"}, `ready_tool: "session_init" is the init tool`},
		{sessiongate.Config{Requires: []string{"a"}, Exempt: []string{"b"}}, "exempt: only require_all gates tools to exempt"},
		{sessiongate.Config{RequireAll: true, Timeout: -1}, "timeout: must not be negative, got -1ns"},
		{sessiongate.Config{RequireAll: true, OnStoreError: 7}, "on_store_error: unknown policy 7"},
		{sessiongate.Config{RequireAll: true, Unlist: true, Store: failing{}}, "unlist: the store (sessiongate_test.failing) cannot answer without I/O"},
	}
	for _, tt := range tests {
		srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		if err := srv.Use(sessiongate.New(tt.cfg)); err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.cfg, err, tt.want)
		}
	}
	g := newGated(t, sessiongate.Config{Requires: []string{"work"}})
	if err := g.gate.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	p := sessiongate.New(sessiongate.Config{Requires: []string{"wrok"}, ReadyTool: "ready"})
	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	if err := errors.Join(srv.Use(p), srv.Start()); err != nil {
		t.Fatal(err)
	}
	err := p.Check()
	for _, want := range []string{`init_tool: the server has no tool "session_init"`, `ready_tool: the server has no tool "ready"`, `requires[0]: the server has no tool "wrok"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v, want %q", err, want)
		}
	}
}

// failing is a Store that always fails.
type failing struct{}

func (failing) Load(context.Context, string) (sessiongate.State, error) {
	return 0, errors.New("store down")
}

func (failing) Advance(context.Context, string, sessiongate.State) (sessiongate.State, error) {
	return 0, errors.New("store down")
}

// TestStoreFailure: when the store fails, gated calls are refused
// (flows.FailClosed, the zero value) or let through (flows.FailOpen);
// other calls never touch it.
func TestStoreFailure(t *testing.T) {
	closed := newGated(t, sessiongate.Config{Requires: []string{"work"}, Store: failing{}})
	cs := connect(t, closed.srv)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != (&sessiongate.UnavailableError{}).Error() {
		t.Errorf("fail closed: %+v %v", res, err)
	}
	closed.run(t, cs, []step{{tool: "free", texts: []string{"free ok"}}, {tool: "session_init", texts: []string{"session_init ok"}}})

	open := newGated(t, sessiongate.Config{Requires: []string{"work"}, Store: failing{}, OnStoreError: flows.FailOpen})
	open.run(t, connect(t, open.srv), []step{{tool: "work", texts: []string{"work ok"}}})
}

func TestParseState(t *testing.T) {
	for s := sessiongate.Uninitialized; s <= sessiongate.Working; s++ {
		if got, err := sessiongate.ParseState(s.String()); got != s || err != nil {
			t.Errorf("ParseState(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := sessiongate.ParseState("redy"); err == nil || !strings.Contains(err.Error(), `did you mean "ready"?`) {
		t.Errorf("ParseState(redy): %v", err)
	}
}
