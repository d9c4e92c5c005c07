package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name: its hooks' IDs start with the scope path of
// "auth".
const Name = "auth"

// CodeInsufficientScope is the JSON-RPC error code of the body of an HTTP
// 403 insufficient-scope response (see [Plugin.Handler]). It is in the
// range JSON-RPC reserves for implementation-defined server errors.
const CodeInsufficientScope = -32003

// Policy says what requests without a bearer token may call: requests over
// stdio or in-memory transports, or over HTTP without [Plugin.Handler]'s
// middleware in front.
type Policy int

const (
	// DenyScoped, the default, lets requests without a token call only tools
	// that require no scope; tools that do are hidden and refused.
	DenyScoped Policy = iota
	// AllowAll lets requests without a token call every tool, e.g. for a
	// stdio server whose only client is its local user. Requests with a
	// token are still checked.
	AllowAll
)

// String returns the policy's name.
func (p Policy) String() string {
	switch p {
	case DenyScoped:
		return "DenyScoped"
	case AllowAll:
		return "AllowAll"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// Auditor records a request refused before any flow ran for it. Its
// method must not block: the refused client waits for it.
type Auditor interface {
	RecordRefusal(ctx context.Context, r flows.Refusal)
}

// DefaultSessionTimeout is how long [Plugin.Handler] keeps an idle
// stateful session when its options set no SessionTimeout: a client that
// goes away without closing its session no longer holds it for ever. It is
// the framework's default.
const DefaultSessionTimeout = framework.DefaultSessionTimeout

// Plugin is the auth plugin. Build it with [New], attach it with
// framework.Server.Use (or App.Use, to guard that app's tools only), and
// serve HTTP through [Plugin.Handler].
type Plugin struct {
	// given is the configuration New was given, which Validate checks;
	// cfg is what the plugin runs with (the verifier of Tokens built).
	given    Config
	cfg      Config
	priority int
	// att is set by Attach; it is read lock-free by every request.
	att atomic.Pointer[attachment]
}

type attachment struct {
	srv    *framework.Server
	app    *scope.Scope // nil at server level
	logger *slog.Logger
	// challenger is the decided_by of the audit events of calls the
	// scope challenge refuses: the plugin's scope path + "/http:scope-challenge".
	challenger string
	// ids numbers those events' request IDs, after the plugin's random
	// prefix idPrefix.
	ids      atomic.Uint64
	idPrefix string
}

// New returns the auth plugin configured by cfg. cfg is validated (see
// [Config.Validate]) when the plugin is attached (at the server's Start),
// so that a bad setting stops the server with a message naming the plugin
// and the field. With Config.Tokens and no Config.Verifier, New builds the
// verifier of those tokens, reading the token_env variables now; with
// Config.AllowAnonymous, Unauthenticated is AllowAll.
func New(cfg Config) *Plugin {
	cfg.ToolScopes = cloneScopes(cfg.ToolScopes)
	cfg.Scopes = slices.Clone(cfg.Scopes)
	cfg.ScopesSupported = slices.Clone(cfg.ScopesSupported)
	cfg.Tokens = slices.Clone(cfg.Tokens)
	for i := range cfg.Tokens {
		cfg.Tokens[i].Scopes = slices.Clone(cfg.Tokens[i].Scopes)
		cfg.Tokens[i].Claims = maps.Clone(cfg.Tokens[i].Claims)
	}
	given := cfg
	if cfg.Verifier == nil && len(cfg.Tokens) > 0 {
		cfg.Verifier = staticTokens(cfg.Tokens)
	}
	if cfg.AllowAnonymous {
		cfg.Unauthenticated = AllowAll
	}
	p := &Plugin{given: given, cfg: cfg, priority: cfg.Priority}
	if p.priority == 0 {
		p.priority = priority.Auth
	}
	return p
}

func cloneScopes(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// Name returns "auth".
func (p *Plugin) Name() string { return Name }

// Attach validates the configuration and registers the plugin's hooks: a
// tools:call-tool beforeValidation hook that refuses calls whose token
// lacks the tool's scopes, and a tools:list-tools afterExecute hook that
// hides those tools.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.given.Validate(); err != nil {
		return err
	}
	if p.att.Load() != nil {
		return errors.New("the plugin is already attached; make one per server (auth.New)")
	}
	a := &attachment{srv: pc.Server, logger: p.cfg.Logger,
		challenger: pc.Scope.Path() + "/http:scope-challenge", idPrefix: "auth-" + rand.Text()[:8] + "-"}
	if pc.App != nil {
		a.app = pc.App.Scope()
	}
	if a.logger == nil {
		a.logger = pc.Server.Logger()
	}
	p.att.Store(a)
	if err := pc.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Priority: p.priority, Name: "scopes", Fn: p.callHook},
	); err != nil {
		p.att.Store(nil)
		return err
	}
	return nil
}

// Check reports configuration problems that can only be seen once the
// server has started: ToolScopes naming a tool the server does not have,
// as [Config.Validate] reports its errors (Field "tool_scopes.<name>").
// [Plugin.Handler] calls it; stdio servers may call it after Start.
func (p *Plugin) Check() error {
	a := p.att.Load()
	if a == nil {
		return errors.New("auth: the plugin is not attached to a started server (srv.Use(plugin), then srv.Start)")
	}
	var errs []error
	for _, name := range slices.Sorted(mapsKeys(p.cfg.ToolScopes)) {
		if _, ok := a.srv.Tool(name); !ok {
			errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: "tool_scopes." + name, Msg: fmt.Sprintf("the server has no tool %q", name)})
		}
	}
	return errors.Join(errs...)
}

// RequiredScopes returns the scopes a caller needs for the tool named
// name: those of Config.ToolScopes and the tool's own, without duplicates.
// It returns nil for a tool that needs none, for an unknown tool, and for a
// tool outside the app the plugin is attached to.
func (p *Plugin) RequiredScopes(name string) []string {
	a := p.att.Load()
	if a == nil {
		return nil
	}
	cfg, own := p.scopesOf(a, name)
	return union(cfg, own)
}

// scopesOf returns the two lists of scopes the tool named name requires.
func (p *Plugin) scopesOf(a *attachment, name string) (cfg, own []string) {
	info, ok := a.srv.Tool(name)
	if !ok {
		return nil, nil
	}
	if a.app != nil && info.App != a.app {
		return nil, nil
	}
	return p.cfg.ToolScopes[name], info.Scopes
}

func union(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make([]string, 0, len(a)+len(b))
	for _, s := range a {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// allowed reports whether ti may call the tool named name, looked up by
// name (the HTTP layer, before any flow runs).
func (p *Plugin) allowed(a *attachment, name string, ti *sdkauth.TokenInfo) bool {
	cfg, own := p.scopesOf(a, name)
	return p.permits(cfg, own, ti)
}

// allowedEntity reports whether ti may call the tool e that a run
// resolved: its scopes come with it, so no lookup is made. The plugin's
// hooks and Visible only see tools the plugin covers, so the app check of
// scopesOf is not needed here.
func (p *Plugin) allowedEntity(e *flows.Entity, ti *sdkauth.TokenInfo) bool {
	return p.permits(p.cfg.ToolScopes[e.Name], e.Scopes, ti)
}

// permits reports whether ti holds every scope of cfg and own. It
// allocates nothing.
func (p *Plugin) permits(cfg, own []string, ti *sdkauth.TokenInfo) bool {
	if len(cfg)+len(own) == 0 {
		return true
	}
	if ti == nil {
		return p.cfg.Unauthenticated == AllowAll
	}
	for _, s := range cfg {
		if !slices.Contains(ti.Scopes, s) {
			return false
		}
	}
	for _, s := range own {
		if !slices.Contains(ti.Scopes, s) {
			return false
		}
	}
	return true
}

// denial returns the error explaining why ti may not call the tool named
// name, or nil when it may.
func (p *Plugin) denial(a *attachment, name string, ti *sdkauth.TokenInfo) *ScopeError {
	if p.allowed(a, name, ti) {
		return nil
	}
	req := p.RequiredScopes(name)
	e := &ScopeError{Tool: name, Required: req, Authenticated: ti != nil}
	for _, s := range req {
		if ti == nil || !slices.Contains(ti.Scopes, s) {
			e.Missing = append(e.Missing, s)
		}
	}
	return e
}

// ScopeError is why a call was refused: the caller's token lacks scopes the
// tool requires, or the request has no token at all. Hooks that run after
// the auth plugin (an audit plugin's finally hook) find it with errors.As
// on the run's error.
type ScopeError struct {
	// Tool is the tool's name.
	Tool string
	// Required are all the scopes the tool requires; Missing those the
	// caller's token lacks (all of them without a token).
	Required []string
	Missing  []string
	// Authenticated is false when the request carried no token.
	Authenticated bool
}

// Error tells the model what is missing, e.g.
// `permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`.
func (e *ScopeError) Error() string {
	var b strings.Builder
	if !e.Authenticated {
		b.WriteString("permission denied: tool ")
		b.WriteString(strconv.Quote(e.Tool))
		b.WriteString(" requires an access token with ")
		writeScopes(&b, e.Missing)
		b.WriteString("; this request has none")
		return b.String()
	}
	b.WriteString("permission denied: the caller's access token lacks ")
	writeScopes(&b, e.Missing)
	b.WriteString(", required by tool ")
	b.WriteString(strconv.Quote(e.Tool))
	return b.String()
}

func writeScopes(b *strings.Builder, scopes []string) {
	if len(scopes) == 1 {
		b.WriteString("scope ")
	} else {
		b.WriteString("scopes ")
	}
	for i, s := range scopes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
}

// callHook refuses a tools/call whose caller may not call the tool.
func (p *Plugin) callHook(c *flows.Context) error {
	ti := c.Request().TokenInfo
	if p.allowedEntity(c.Entity(), ti) {
		return nil
	}
	a := p.att.Load()
	name := c.Entity().Name
	e := p.denial(a, name, ti)
	a.logger.LogAttrs(c.Context(), slog.LevelDebug, "auth: call denied",
		slog.String("tool", name),
		slog.String("principal", c.Request().Principal()),
		slog.String("session", c.Request().SessionID),
		slog.String("request", c.Request().ID),
		slog.Any("missing", e.Missing))
	return e
}

// Visible implements framework.Visibility: a tool the caller may not call
// is left out of tools/list, and its call is refused by the call hook with
// the scopes it needs; with Config.Conceal it is hidden instead, unknown to
// tools/call as well.
func (p *Plugin) Visible(r *flows.Request, e *flows.Entity) framework.Sight {
	if e.Kind != flows.EntityTool || p.allowedEntity(e, r.TokenInfo) {
		return framework.Shown
	}
	if p.cfg.Conceal {
		return framework.Hidden
	}
	return framework.Unlisted
}

// The plugin is a framework.Plugin and, deciding which tools a caller
// sees, a framework.Visibility: a wrong method shape fails to compile.
var (
	_ framework.Plugin     = (*Plugin)(nil)
	_ framework.Visibility = (*Plugin)(nil)
)
