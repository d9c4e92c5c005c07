package plugintest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// RunOptions configures [Run]. The zero value runs every check with its
// defaults.
type RunOptions struct {
	// Token is the verified bearer token the checks' sessions present, for
	// plugins that need a caller (nil: unauthenticated).
	Token *auth.TokenInfo
	// Setup runs on every server of the checks before Start, e.g. to
	// provide what the plugin depends on.
	Setup func(s *framework.Server) error
	// Calls is the number of concurrent calls of the Concurrent check
	// (default 100), spread over Sessions sessions (default 4).
	Calls, Sessions int
	// Blocked are calls of the test tools that the plugin from newPlugin
	// must block, for the Blocked check (a [ToolEcho] call whose text it
	// refuses, say); none skips it.
	Blocked []Call
}

// Call is a tools/call of [RunOptions.Blocked]: a tool's name and its
// arguments (anything that marshals to a JSON object).
type Call struct {
	Tool string
	Args any
}

// Run runs the checks every plugin should pass, each as a subtest of t
// with a plugin from newPlugin (called once per check, with the subtest):
//
//   - Owner: the plugin has a name, and every hook it registers at Attach
//     is owned by its own scope, a plugin scope whose path ends in
//     "plugin:<name>" (as [scope.Scope.FlowHooksForOwner] lists them).
//   - RunContract: with the plugin attached to the server, the test tools
//     still behave: a plain call succeeds with the right output, a failing
//     or panicking tool and invalid arguments give isError, an unknown tool
//     a protocol error -32602, a non-idempotent tool executes every time,
//     and finally runs exactly once per call.
//   - Concurrent: Calls concurrent calls over Sessions sessions, mixing
//     successes and failures, each get their own answer and one finally
//     (run the tests with -race).
//   - App: attached to one of two apps, the plugin's tools:call-tool hooks
//     run for that app's tools and never for the other app's.
//   - Blocked: each call of [RunOptions.Blocked] fails (isError or a
//     protocol error) without the tool running, decided by one of the
//     plugin's hooks ([Result.DecidedBy]), with one finally.
//   - PanicHidden: a panic (in the tool, in a hook before execute, in a
//     hook after it) gives the client a failure that holds nothing of the
//     panic's message, in its text, its structured content or its error:
//     a plugin that shows errors to clients must not show a panic's.
//
// A plugin that needs configuration to let plain calls through (an auth
// plugin needs a token, a rate limiter a large enough budget) gets it from
// newPlugin and opts, which may be nil.
func Run(t *testing.T, newPlugin func(t testing.TB) framework.Plugin, opts *RunOptions) {
	t.Helper()
	var o RunOptions
	if opts != nil {
		o = *opts
	}
	if o.Calls <= 0 {
		o.Calls = 100
	}
	if o.Sessions <= 0 {
		o.Sessions = 4
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newPlugin, &o) })
	}
}

type check struct {
	name string
	fn   func(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions)
}

var checks = []check{
	{"Owner", checkOwner},
	{"RunContract", checkRunContract},
	{"Concurrent", checkConcurrent},
	{"App", checkApp},
	{"Blocked", checkBlocked},
	{"PanicHidden", checkPanicHidden},
}

// newPluginHarness builds a harness with p on the server or, when app is
// set, on app "a" of two apps "a" and "b".
func newPluginHarness(t testing.TB, p framework.Plugin, o *RunOptions, app bool) *Harness {
	t.Helper()
	opts := &Options{Token: o.Token, Setup: o.Setup}
	if app {
		opts.NoTools = true
		opts.Apps = []AppOptions{{Name: "a", Plugins: []framework.Plugin{p}}, {Name: "b"}}
	} else {
		opts.Plugins = []framework.Plugin{p}
	}
	h := New(t, opts)
	if err := h.Start(); err != nil {
		t.Fatalf("the plugin does not start: %v", err)
	}
	return h
}

// ownedHooks checks that every hook the plugins attached with registered is
// owned by sc and listed by FlowHooksForOwner, and returns how many there
// are.
func ownedHooks(t testing.TB, h *Harness, sc *scope.Scope) int {
	t.Helper()
	hooks := h.PluginHooks()
	for _, hk := range hooks {
		if hk.Owner() != sc {
			t.Errorf("hook %s is owned by %s, not by the plugin's scope %s: register hooks with PluginContext.Hook", hk.ID(), hk.Owner().Path(), sc.Path())
		}
	}
	listed := 0
	for _, f := range flows.All() {
		for _, hk := range h.Server().Scope().FlowHooksForOwner(f.ID, sc) {
			listed++
			if !strings.HasPrefix(hk.ID(), sc.Path()+"/") {
				t.Errorf("hook %s: ID does not start with the plugin's scope %s", hk.ID(), sc.Path())
			}
		}
	}
	if listed != len(hooks) {
		t.Errorf("FlowHooksForOwner(%s) lists %d hooks, the plugin registered %d", sc.Path(), listed, len(hooks))
	}
	return len(hooks)
}

func pluginScope1(t testing.TB, h *Harness, name string) *scope.Scope {
	t.Helper()
	scs := h.PluginScopes(name)
	if len(scs) != 1 {
		t.Fatalf("plugin %q was attached %d times, want 1", name, len(scs))
	}
	return scs[0]
}

func checkOwner(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	p := newPlugin(t)
	name := p.Name()
	if name == "" {
		t.Fatal("Name() is empty")
	}
	if again := p.Name(); again != name {
		t.Errorf("Name() changed from %q to %q", name, again)
	}
	h := newPluginHarness(t, p, o, false)
	sc := pluginScope1(t, h, name)
	if sc.Kind() != scope.KindPlugin || !strings.HasSuffix(sc.Path(), "/plugin:"+name) {
		t.Errorf("plugin scope %s (kind %v), want a plugin scope ending in /plugin:%s", sc.Path(), sc.Kind(), name)
	}
	if n := ownedHooks(t, h, sc); n == 0 {
		t.Logf("plugin %q registers no hooks", name)
	}
}

// wantFinallyOnce checks that exactly one tools/call ran since the last
// check, with one finally. For protocol errors that never reach a flow,
// runs is 0.
func wantFinallyOnce(t testing.TB, h *Harness, what string, runs int) {
	t.Helper()
	f := h.Finally()
	if len(f) != runs {
		t.Errorf("%s: finally ran for %d tools/call runs, want %d", what, len(f), runs)
	}
	for id, n := range f {
		if n != 1 {
			t.Errorf("%s: finally ran %d times for request %s, want once", what, n, id)
		}
	}
}

func checkRunContract(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	h := newPluginHarness(t, newPlugin(t), o, false)
	names := h.ToolNames()
	for _, want := range []string{ToolEcho, ToolFail, ToolNext, ToolPanic} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, missing %q", names, want)
		}
	}
	h.Finally()

	for i := range 2 { // twice: a cache may answer the second
		h.Call(ToolEcho, Text{Text: "hello"}).WantText(EchoText("hello"))
		wantFinallyOnce(t, h, fmt.Sprintf("echo #%d", i+1), 1)
	}
	h.Call(ToolEcho, Text{Text: "other"}).WantText(EchoText("other"))
	wantFinallyOnce(t, h, "echo other", 1)

	for i := range 2 {
		h.Call(ToolFail, Text{Text: "boom"}).WantToolError("fail: boom")
		wantFinallyOnce(t, h, fmt.Sprintf("fail #%d", i+1), 1)
	}
	h.Call(ToolPanic, Text{Text: "x"}).WantToolError("internal error")
	wantFinallyOnce(t, h, "panic", 1)
	h.Call(ToolEcho, map[string]any{"text": 5}).WantToolError("text")
	wantFinallyOnce(t, h, "invalid arguments", 1)

	var a, b Count
	if err := h.Call(ToolNext, Text{}).Decode(&a); err != nil {
		t.Errorf("next: %v", err)
	}
	if err := h.Call(ToolNext, Text{}).Decode(&b); err != nil {
		t.Errorf("next: %v", err)
	}
	if a.N == b.N {
		t.Errorf("next returned %d twice: a tool that is not idempotent must execute on every call", a.N)
	}
	wantFinallyOnce(t, h, "next twice", 2)

	h.Call("no_such_tool", Text{}).WantProtocolError(jsonrpc.CodeInvalidParams)
	wantFinallyOnce(t, h, "unknown tool", 0)
}

func checkConcurrent(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	h := newPluginHarness(t, newPlugin(t), o, false)
	sessions := make([]*Session, o.Sessions)
	for i := range sessions {
		sessions[i] = h.Connect(nil)
	}
	h.Finally()
	var wg sync.WaitGroup
	for i := range o.Calls {
		s := sessions[i%len(sessions)]
		text := fmt.Sprintf("msg-%d", i%10) // repeated arguments, for caches
		wg.Go(func() {
			if i%4 == 3 {
				s.Call(ToolFail, Text{Text: text}).WantToolError("fail: " + text)
				return
			}
			s.Call(ToolEcho, Text{Text: text}).WantText(EchoText(text))
		})
	}
	wg.Wait()
	wantFinallyOnceEach(t, h, o.Calls)
}

func wantFinallyOnceEach(t testing.TB, h *Harness, calls int) {
	t.Helper()
	f := h.Finally()
	if len(f) != calls {
		t.Errorf("finally ran for %d tools/call runs, want %d", len(f), calls)
	}
	for id, n := range f {
		if n != 1 {
			t.Errorf("finally ran %d times for request %s, want once", n, id)
		}
	}
}

func checkApp(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	p := newPlugin(t)
	name := p.Name()
	h := newPluginHarness(t, p, o, true)
	sc := pluginScope1(t, h, name)
	if want := "/app:a/plugin:" + name; !strings.HasSuffix(sc.Path(), want) {
		t.Errorf("plugin scope %s, want a path ending in %s", sc.Path(), want)
	}
	ownedHooks(t, h, sc)
	// The plugin's tools:call-tool hooks, wherever it registered them.
	mine := map[string]bool{}
	for _, hk := range h.PluginHooks() {
		if hk.Flow == flows.ToolsCallTool {
			mine[hk.ID()] = true
		}
	}
	ran := func() []string {
		var ids []string
		for id := range h.HookCalls() {
			if mine[id] {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		return ids
	}

	h.Session()
	h.HookCalls()
	h.Call("b_"+ToolEcho, Text{Text: "to b"}).WantText(EchoText("to b"))
	if ids := ran(); len(ids) > 0 {
		t.Errorf("plugin attached to app a ran %v for app b's tool", ids)
	}
	h.Call("a_"+ToolEcho, Text{Text: "to a"}).WantText(EchoText("to a"))
	if ids := ran(); len(mine) > 0 && len(ids) == 0 {
		t.Errorf("plugin attached to app a has %d tools:call-tool hooks, none ran for app a's tool", len(mine))
	}
	h.Call("b_"+ToolFail, Text{Text: "b"}).WantToolError("fail: b")
	if ids := ran(); len(ids) > 0 {
		t.Errorf("plugin attached to app a ran %v for app b's failing tool", ids)
	}
}

func checkBlocked(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	if len(o.Blocked) == 0 {
		t.Log("no RunOptions.Blocked: nothing to check")
		return
	}
	p := newPlugin(t)
	h := newPluginHarness(t, p, o, false)
	own := pluginScope1(t, h, p.Name()).Path() + "/"
	h.Session()
	h.Finally()
	for _, c := range o.Blocked {
		r := h.Call(c.Tool, c.Args)
		if r.Err == nil && !r.IsError() {
			t.Errorf("%v: want it blocked (isError or a protocol error)", r)
		}
		if r.Ran {
			t.Errorf("%v: the tool ran; a blocked call must not execute", r)
		}
		if r.RequestID == "" { // refused before any run: no hook decided
			h.Finally()
			continue
		}
		if !strings.HasPrefix(r.DecidedBy, own) {
			t.Errorf("%v: decided by %q, want one of the plugin's hooks (%s...)", r, r.DecidedBy, own)
		}
		wantFinallyOnce(t, h, fmt.Sprintf("blocked %s", c.Tool), 1)
	}
}

// panicMarker is in the message of every panic of the PanicHidden check
// and in none of its arguments.
const panicMarker = "plugintest-panic-message"

// The arguments of ToolEcho calls on which the PanicHidden check's hooks
// panic.
const (
	panicBefore = "panic before execute"
	panicAfter  = "panic after execute"
)

func checkPanicHidden(t testing.TB, newPlugin func(t testing.TB) framework.Plugin, o *RunOptions) {
	panicOn := func(text string) flows.HookFunc {
		return func(c *flows.Context) error {
			if strings.Contains(string(c.Arguments()), text) {
				panic("plugintest: " + panicMarker + ": a hook panicked")
			}
			return nil
		}
	}
	h := New(t, &Options{Token: o.Token, Plugins: []framework.Plugin{newPlugin(t)}, Setup: func(s *framework.Server) error {
		if o.Setup != nil {
			if err := o.Setup(s); err != nil {
				return err
			}
		}
		// Around the plugin's hooks: after its beforeExecute hooks, before
		// its afterExecute ones, so that its onError and finally hooks see
		// the panic.
		return s.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Priority: priority.Min, Name: "plugintest.panic-before", Fn: panicOn(panicBefore)},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Priority: priority.Max, Name: "plugintest.panic-after", Fn: panicOn(panicAfter)},
		)
	}})
	if err := h.Start(); err != nil {
		t.Fatalf("the plugin does not start: %v", err)
	}
	h.Session()
	h.Finally()
	for _, c := range []struct {
		what, tool, text, message string
	}{
		{"a panicking tool", ToolPanic, "x", "panic tool called with"},
		{"a hook panicking before execute", ToolEcho, panicBefore, panicMarker},
		{"a hook panicking after execute", ToolEcho, panicAfter, panicMarker},
	} {
		r := h.Call(c.tool, Text{Text: c.text})
		if r.Err == nil && !r.IsError() {
			t.Errorf("%s: %v, want a failure", c.what, r)
		}
		seen := ""
		if r.Err != nil {
			seen = r.Err.Error()
		}
		if r.Res != nil {
			b, err := json.Marshal(r.Res)
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			seen += string(b)
		}
		if strings.Contains(seen, c.message) {
			t.Errorf("%s: the client sees the panic's message: %s", c.what, seen)
		}
		wantFinallyOnce(t, h, c.what, 1)
	}
}
