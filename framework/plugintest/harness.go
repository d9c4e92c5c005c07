package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// Options configures a [Harness]. The zero value is a server with the test
// tools and no plugin.
type Options struct {
	// Plugins are attached to the server: their hooks run for every entity.
	Plugins []framework.Plugin
	// Apps are created on the server, each with its own copy of the test
	// tools, named "<app>_echo", "<app>_fail" and so on (see [AddTools]).
	Apps []AppOptions
	// NoTools leaves the test tools off the server itself; apps keep theirs.
	NoTools bool
	// Setup runs when the harness starts (at [Harness.Start] or on first
	// use), after New has returned and the test tools and apps are added,
	// before the plugins attach: add further tools, hooks or dig providers
	// there, to the server it gets or to an app from [Harness.App]. Its
	// error is Start's.
	Setup func(s *framework.Server) error
	// Server configures the server. Its Observer, if any, still sees every
	// event; the harness observes runs too (see [Harness.HookCalls]).
	Server *framework.Options
	// Token is the verified bearer token that sessions present by default
	// (see [SessionOptions.Token]); nil means unauthenticated.
	Token *auth.TokenInfo
}

// AppOptions describes an app of a [Harness].
type AppOptions struct {
	// Name is the app's name; its test tools are prefixed with Name + "_".
	Name string
	// Plugins are attached to the app: their hooks run for its entities
	// only.
	Plugins []framework.Plugin
}

// Harness is an in-memory hookflow server with plugins, the test tools of
// [AddTools], and real MCP client sessions connected to it over
// mcp.NewInMemoryTransports. Build one with [New]; it starts on first use
// and closes its sessions when the test ends.
//
// Besides what the client sees, a Harness records what happened on the
// server: how many times finally ran for each tools/call request
// ([Harness.Finally]) and which hooks ran ([Harness.HookCalls]).
//
// A Harness is safe for concurrent use by the goroutines of one test.
type Harness struct {
	t    testing.TB
	opts Options
	srv  *framework.Server
	apps map[string]*framework.App

	startMu  sync.Mutex // held while starting
	started  bool
	startErr error

	mu sync.Mutex // guards what follows
	// preStart holds the IDs of hooks registered before the plugins attach:
	// the harness's own.
	preStart map[string]bool
	scopes   []pluginScope
	finally  map[string]int
	calls    map[string]int
	def      *Session
	// outcomes holds what the server side saw of each call of a Session,
	// keyed by the call's token (see callKey), until the call returns.
	outcomes map[string]*outcome
	seq      uint64

	tokens sync.Map // *mcp.ServerSession → *auth.TokenInfo
}

type pluginScope struct {
	name  string
	scope *scope.Scope
}

// New builds a Harness configured by opts, which may be nil. It fails t
// when the server cannot be built; Start errors (a plugin's bad
// configuration, a failing [Options.Setup]) are reported by
// [Harness.Start], or fail t on first use.
func New(t testing.TB, opts *Options) *Harness {
	t.Helper()
	h := &Harness{t: t, apps: map[string]*framework.App{}, finally: map[string]int{}, calls: map[string]int{}, outcomes: map[string]*outcome{}}
	if opts != nil {
		h.opts = *opts
	}
	var so framework.Options
	if h.opts.Server != nil {
		so = *h.opts.Server
	}
	user := so.Observer
	so.Observer = func(ev *flows.Event) {
		if ev.Hook != "" {
			h.mu.Lock()
			h.calls[ev.Hook]++
			h.mu.Unlock()
		}
		if ev.Step == "execute" && ev.Flow == flows.ToolsCallTool {
			h.record(ev.Context, func(o *outcome) { o.ran = true })
		}
		if user != nil {
			user(ev)
		}
	}
	h.srv = framework.NewServer(&mcp.Implementation{Name: "plugintest", Version: "1.0.0"}, &so)
	h.srv.SDK().AddReceivingMiddleware(h.authenticate)
	if err := h.build(); err != nil {
		t.Fatalf("plugintest: building the server: %v", err)
	}
	return h
}

func (h *Harness) build() error {
	var errs []error
	if !h.opts.NoTools {
		errs = append(errs, AddTools(h.srv, ""))
	}
	errs = append(errs, h.srv.Use(h.spies(h.opts.Plugins)...))
	for _, ao := range h.opts.Apps {
		a, err := h.srv.App(ao.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h.apps[ao.Name] = a
		errs = append(errs, AddTools(a, ao.Name+"_"), a.Use(h.spies(ao.Plugins)...))
	}
	errs = append(errs, h.srv.Hook(flows.Hook{
		Flow: flows.ToolsCallTool, Stage: stages.Finally, Priority: priority.Min, Name: "plugintest.finally",
		Fn: func(c *flows.Context) error {
			h.mu.Lock()
			h.finally[c.Request().ID]++
			h.mu.Unlock()
			h.record(c, func(o *outcome) {
				o.id, o.decidedBy = c.Request().ID, c.DecidedBy()
				o.decisions = slices.Clone(c.Decisions())
			})
			return nil
		},
	}))
	return errors.Join(errs...)
}

// callKey is the _meta key under which a [Session]'s calls carry their
// token, for the harness to tell the server side of each call.
const callKey = "plugintest/call"

// outcome is what the server side saw of one call.
type outcome struct {
	id        string
	ran       bool
	decidedBy string
	decisions []flows.Decision
}

// record applies f to the outcome of c's call, when c is the run of a call
// a Session made.
func (h *Harness) record(c *flows.Context, f func(*outcome)) {
	req, _ := c.Request().SDK.(*mcp.CallToolRequest)
	if req == nil || req.Params == nil {
		return
	}
	key, _ := req.Params.Meta[callKey].(string)
	if key == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	o := h.outcomes[key]
	if o == nil {
		return // not a call of ours, or one already returned
	}
	f(o)
}

// spy wraps a plugin to learn the scope it is attached with.
type spy struct {
	framework.Plugin
	h *Harness
}

func (s spy) Attach(p *framework.PluginContext) error {
	s.h.mu.Lock()
	s.h.scopes = append(s.h.scopes, pluginScope{name: s.Name(), scope: p.Scope})
	s.h.mu.Unlock()
	return s.Plugin.Attach(p)
}

func (h *Harness) spies(ps []framework.Plugin) []framework.Plugin {
	out := make([]framework.Plugin, len(ps))
	for i, p := range ps {
		if p == nil {
			out[i] = nil // Use reports it
			continue
		}
		s := spy{Plugin: p, h: h}
		if v, ok := p.(framework.Visibility); ok {
			// The spy must not hide that the plugin decides what callers see.
			out[i] = visibleSpy{spy: s, v: v}
			continue
		}
		out[i] = s
	}
	return out
}

// visibleSpy is the spy of a plugin that is a framework.Visibility.
type visibleSpy struct {
	spy
	v framework.Visibility
}

func (s visibleSpy) Visible(r *flows.Request, e *flows.Entity) framework.Sight {
	return s.v.Visible(r, e)
}

// authenticate gives requests of sessions that present a token the token,
// as the SDK's bearer-token middleware does over HTTP.
func (h *Harness) authenticate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			return next(ctx, method, req)
		}
		tok, ok := h.tokens.Load(ss)
		if !ok {
			return next(ctx, method, req)
		}
		v := reflect.ValueOf(req)
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			if f := v.Elem().FieldByName("Extra"); f.IsValid() && f.CanSet() && f.Type() == reflect.TypeFor[*mcp.RequestExtra]() {
				extra := &mcp.RequestExtra{}
				if old := req.GetExtra(); old != nil {
					*extra = *old
				}
				extra.TokenInfo = tok.(*auth.TokenInfo)
				f.Set(reflect.ValueOf(extra))
			}
		}
		return next(ctx, method, req)
	}
}

// Server returns the harness's server, e.g. to inspect its scope.
func (h *Harness) Server() *framework.Server { return h.srv }

// App returns the app named name, or nil.
func (h *Harness) App(name string) *framework.App { return h.apps[name] }

// Start starts the server (attaching the plugins) and returns its error, for
// tests of a plugin's configuration. It is idempotent; every other method
// calls it and fails the test on error.
func (h *Harness) Start() error {
	h.startMu.Lock()
	defer h.startMu.Unlock()
	if h.started {
		return h.startErr
	}
	h.started = true
	if h.opts.Setup != nil {
		// Here rather than in New: Setup may use the harness, its apps
		// included, which New has not returned yet.
		if err := h.opts.Setup(h.srv); err != nil {
			h.startErr = fmt.Errorf("plugintest: Setup: %w", err)
			return h.startErr
		}
	}
	pre := map[string]bool{}
	for _, hk := range h.srv.Scope().Hooks() {
		pre[hk.ID()] = true
	}
	h.mu.Lock()
	h.preStart = pre
	h.mu.Unlock()
	h.startErr = h.srv.Start()
	return h.startErr
}

func (h *Harness) mustStart() {
	h.t.Helper()
	if err := h.Start(); err != nil {
		h.t.Fatalf("plugintest: starting the server: %v", err)
	}
}

// PluginScopes returns the scopes that the plugins named name were attached
// with, in attach order (one per server or app they were attached to).
func (h *Harness) PluginScopes(name string) []*scope.Scope {
	h.mustStart()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*scope.Scope
	for _, ps := range h.scopes {
		if ps.name == name {
			out = append(out, ps.scope)
		}
	}
	return out
}

// PluginHooks returns the external hooks registered while the plugins
// attached (the harness's own hooks and embedded hooks excluded), in
// registration order.
func (h *Harness) PluginHooks() []scope.Registration {
	h.mustStart()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []scope.Registration
	for _, hk := range h.srv.Scope().Hooks() {
		if !hk.Embedded() && !h.preStart[hk.ID()] {
			out = append(out, hk)
		}
	}
	return out
}

// Finally returns, for each tools/call request since the last call to
// Finally, how many times its finally stage ran (keyed by hookflow's request
// ID), and forgets them. The run contract wants 1 for each.
func (h *Harness) Finally() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.finally
	h.finally = map[string]int{}
	return f
}

// HookCalls returns how many times each hook ran (keyed by hook ID) since
// the last call to HookCalls, and forgets them.
func (h *Harness) HookCalls() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.calls
	h.calls = map[string]int{}
	return c
}

// SessionOptions configures a [Session].
type SessionOptions struct {
	// Token is the verified bearer token the session's requests carry, as
	// the SDK's auth middleware would set it over HTTP; hooks see it in
	// flows.Request.TokenInfo and Principal. nil uses [Options.Token].
	Token *auth.TokenInfo
	// ProtocolVersion is the protocol version the client asks for; "" lets
	// the client choose.
	ProtocolVersion string
}

// Session is a real MCP client session connected to a [Harness].
type Session struct {
	h  *Harness
	cs *mcp.ClientSession
	ss *mcp.ServerSession
}

// Connect starts the server if needed and connects a new client session.
// opts may be nil. The session closes when the test ends.
func (h *Harness) Connect(opts *SessionOptions) *Session {
	h.t.Helper()
	h.mustStart()
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	if o.Token == nil {
		o.Token = h.opts.Token
	}
	cs, ss := connect(h.t, h.srv, o.ProtocolVersion, func(ss *mcp.ServerSession) {
		if o.Token != nil {
			h.tokens.Store(ss, o.Token)
		}
	})
	h.t.Cleanup(func() { h.tokens.Delete(ss) })
	return &Session{h: h, cs: cs, ss: ss}
}

// ConnectServer connects a new in-memory client session to srv (starting it
// if needed), for tests that build their own server rather than a
// [Harness]. Both ends close when the test ends.
func ConnectServer(t testing.TB, srv *framework.Server) *mcp.ClientSession {
	t.Helper()
	cs, _ := connect(t, srv, "", nil)
	return cs
}

// connect connects srv and a client over in-memory transports. serverSide,
// when set, sees the server session before the client initializes.
func connect(t testing.TB, srv *framework.Server, protocolVersion string, serverSide func(*mcp.ServerSession)) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("plugintest: connecting the server: %v", err)
	}
	if serverSide != nil {
		serverSide(ss)
	}
	var so *mcp.ClientSessionOptions
	if protocolVersion != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plugintest-client", Version: "1.0.0"}, nil).Connect(ctx, ct, so)
	if err != nil {
		_ = ss.Close()
		t.Fatalf("plugintest: connecting a client: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs, ss
}

// Session returns the harness's default session, connecting it on first
// use.
func (h *Harness) Session() *Session {
	h.t.Helper()
	h.mu.Lock()
	s := h.def
	h.mu.Unlock()
	if s != nil {
		return s
	}
	s = h.Connect(nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.def == nil {
		h.def = s
	}
	return h.def
}

// Call calls a tool on the default session (see [Session.Call]).
func (h *Harness) Call(name string, args any) *Result {
	h.t.Helper()
	return h.Session().Call(name, args)
}

// ToolNames lists the tools on the default session (see [Session.ToolNames]).
func (h *Harness) ToolNames() []string {
	h.t.Helper()
	return h.Session().ToolNames()
}

// Client returns the SDK's client session, for requests the Session does
// not wrap.
func (s *Session) Client() *mcp.ClientSession { return s.cs }

// ServerSession returns the server's side of the session.
func (s *Session) ServerSession() *mcp.ServerSession { return s.ss }

// Call calls the tool name with args (anything that marshals to a JSON
// object, or a json.RawMessage) and returns what the client got. It never
// fails the test by itself: assert with the Result's Want methods. It is
// safe to call from several goroutines.
func (s *Session) Call(name string, args any) *Result {
	return s.CallContext(s.h.t.Context(), name, args)
}

// CallContext is [Session.Call] with a context, e.g. to cancel the call.
//
// The call carries a token in its _meta (key "plugintest/call"), by which
// the harness finds what the server did with it: [Result.Ran],
// [Result.DecidedBy] and [Result.Decisions].
func (s *Session) CallContext(ctx context.Context, name string, args any) *Result {
	h := s.h
	o := &outcome{}
	h.mu.Lock()
	h.seq++
	key := strconv.FormatUint(h.seq, 10)
	h.outcomes[key] = o
	h.mu.Unlock()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{callKey: key}})
	h.mu.Lock()
	delete(h.outcomes, key)
	r := &Result{t: h.t, Tool: name, Res: res, Err: err, RequestID: o.id, Ran: o.ran, DecidedBy: o.decidedBy, Decisions: o.decisions}
	h.mu.Unlock()
	return r
}

// ToolNames lists the tools the client sees, sorted. It fails the test if
// tools/list fails.
func (s *Session) ToolNames() []string {
	s.h.t.Helper()
	var names []string
	var cursor string
	for {
		res, err := s.cs.ListTools(s.h.t.Context(), &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			s.h.t.Fatalf("plugintest: tools/list: %v", err)
			return nil
		}
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	slices.Sort(names)
	return names
}

// Result is what the client got from a tools/call: a result (which may have
// isError set) or an error (a protocol error is a *jsonrpc.Error); and, for
// a call of a [Session], what the server did with it: whether the tool ran
// and which hook decided the outcome.
type Result struct {
	t testing.TB
	// Tool is the called tool's name.
	Tool string
	// Res is the result, nil when Err is set.
	Res *mcp.CallToolResult
	// Err is the protocol or transport error.
	Err error

	// RequestID is hookflow's ID of the call's run ([flows.Request.ID],
	// the key of [Harness.Finally]); "" when the call reached no run (an
	// unknown tool, a protocol error before the flow).
	RequestID string
	// Ran reports whether the tool's execute step ran: false when a hook
	// blocked the call, answered it early (a cache hit) or the arguments
	// were invalid.
	Ran bool
	// DecidedBy is the ID of the hook that aborted the run, answered it
	// early or recovered it in onError ([flows.Context.DecidedBy]); ""
	// when no hook did.
	DecidedBy string
	// Decisions are the decisions hooks recorded on the run
	// ([flows.Context.Decide]), in order.
	Decisions []flows.Decision
}

// Text returns the concatenated text contents of the result.
func (r *Result) Text() string {
	if r.Res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// IsError reports whether the client got a result with isError set.
func (r *Result) IsError() bool { return r.Res != nil && r.Res.IsError }

// Code returns the JSON-RPC code of a protocol error, or 0.
func (r *Result) Code() int64 {
	var wire *jsonrpc.Error
	if errors.As(r.Err, &wire) {
		return wire.Code
	}
	return 0
}

// Decode unmarshals the result's structured content into v.
func (r *Result) Decode(v any) error {
	if r.Err != nil {
		return r.Err
	}
	if r.Res == nil || r.Res.StructuredContent == nil {
		return fmt.Errorf("tool %q: no structured content", r.Tool)
	}
	b, err := json.Marshal(r.Res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// String describes the result for failure messages.
func (r *Result) String() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("tool %q: error %v", r.Tool, r.Err)
	case r.IsError():
		return fmt.Sprintf("tool %q: isError %q", r.Tool, r.Text())
	default:
		return fmt.Sprintf("tool %q: %q", r.Tool, r.Text())
	}
}

// WantText reports an error unless the call succeeded (no protocol error,
// isError unset) with text want. It returns r.
func (r *Result) WantText(want string) *Result {
	r.t.Helper()
	if r.Err != nil || r.IsError() || r.Text() != want {
		r.t.Errorf("%v, want success with %q", r, want)
	}
	return r
}

// WantToolError reports an error unless the call ended in a result with
// isError set whose text contains substr. It returns r.
func (r *Result) WantToolError(substr string) *Result {
	r.t.Helper()
	if r.Err != nil || !r.IsError() || !strings.Contains(r.Text(), substr) {
		r.t.Errorf("%v, want isError containing %q", r, substr)
	}
	return r
}

// WantProtocolError reports an error unless the call failed with a JSON-RPC
// error of the given code (e.g. jsonrpc.CodeInvalidParams). It returns r.
func (r *Result) WantProtocolError(code int64) *Result {
	r.t.Helper()
	if r.Code() != code {
		r.t.Errorf("%v, want protocol error %d", r, code)
	}
	return r
}
