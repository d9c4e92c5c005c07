package plugintest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
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
