package guidance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name.
const Name = "guidance"

// DefaultWelcomePrompt is the name of the welcome prompt when
// [Config.WelcomePrompt] is empty.
const DefaultWelcomePrompt = "welcome"

// LoggerName is the logger name of the plugin's MCP log messages.
const LoggerName = "guidance"

// Config configures the guidance plugin. The zero value delivers nothing
// until hooks are registered (Config.Hooks, or Plugin.Registry at any
// time).
//
// Config is also the plugin's section of a configuration file: hooks are
// written with their yaml names (tag, type, lifecycle, level, on,
// conditions…), their content inline or in markdown files of
// ContentDir. Logger is Go-only, as are a hook's FS and RequestID.
type Config struct {
	// App is the app of hooks registered without one, and the first part
	// of their IDs: 1 to 64 of A-Z a-z 0-9 . _ -. Default DefaultApp
	// ("hookflow").
	App string `yaml:"app"`
	// Hooks are registered when the plugin is made; an invalid or
	// duplicate hook, or one that is never delivered (see the package
	// doc), stops the server's Start with an error naming it. Default
	// none.
	Hooks []Hook `yaml:"hooks"`
	// ContentDir is the directory of the hooks' content files: a hook of
	// Hooks without FS reads its file (file, default <tag>.md) from it,
	// a path relative to the directory that cannot leave it. Default "":
	// such a hook reads File as a path of the server's file system.
	ContentDir string `yaml:"content_dir" path:"relative"`
	// Storage lists the active storage backends, for conditions'
	// storage. Default none.
	Storage []string `yaml:"storage"`
	// Settings are the configuration values conditions' config compare
	// with. The map is read, never written, after New. Default none.
	Settings map[string]any `yaml:"settings"`
	// Composer composes every delivery (separator, no_preambles).
	Composer Composer `yaml:"composer"`
	// Role is the role of the messages the plugin adds to prompts: the
	// welcome prompt's and a prompt's action guidance. "" means
	// "assistant", as MCP Toolkit's documentation says its hooks are
	// sent; set "user" for clients that only take user messages.
	Role mcp.Role `yaml:"role"`
	// WelcomePrompt names the prompt that returns the session's start
	// guidance; "" means DefaultWelcomePrompt ("welcome").
	WelcomePrompt string `yaml:"welcome_prompt"`
	// NoWelcomePrompt adds no welcome prompt (default false).
	NoWelcomePrompt bool `yaml:"no_welcome_prompt"`
	// NoInstructions leaves the initialize result's instructions as they
	// are instead of appending the session's start guidance to them
	// (default false).
	NoInstructions bool `yaml:"no_instructions"`
	// Logger receives server-side logs (content that failed to load,
	// hooks that are never delivered); nil uses the server's logger.
	// Go-only.
	Logger *slog.Logger `yaml:"-"`
}

// Validate checks c without a server: a file-safe app, a known role,
// named storage backends, an existing ContentDir, and hooks that are
// valid ([Hook.Validate]), delivered somewhere, not tied to a request,
// and given once. It returns nil or the errors.Join of *flows.Error
// values of code flows.CodeInvalid whose Field is the setting's path
// ("hooks[2].level", "hooks[0]" for a hook as a whole). That a hook's
// target names a tool of the server is checked by [Plugin.Check]. New
// and Attach call it.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	app := c.App
	if app == "" {
		app = DefaultApp
	} else if err := CheckTag(app); err != nil {
		bad("app", "%v", err)
	}
	if r := c.Role; r != "" && r != "assistant" && r != "user" {
		bad("role", "%q is not an MCP role (want assistant or user)", r)
	}
	for i, s := range c.Storage {
		if s == "" {
			bad(fmt.Sprintf("storage[%d]", i), "empty backend name")
		}
	}
	if c.ContentDir != "" {
		if fi, err := os.Stat(c.ContentDir); err != nil {
			bad("content_dir", "%v", err)
		} else if !fi.IsDir() {
			bad("content_dir", "%s is not a directory", c.ContentDir)
		}
	}
	var dirFS fs.FS
	if c.ContentDir != "" {
		dirFS = os.DirFS(c.ContentDir)
	}
	seen := map[string]int{}
	for i := range c.Hooks {
		h := c.Hooks[i]
		at := fmt.Sprintf("hooks[%d]", i)
		if h.App == "" {
			h.App = app
		}
		if h.FS == nil && dirFS != nil {
			h.FS = dirFS
		}
		probs := h.problems()
		for _, p := range probs {
			field := at
			if p.field != "" {
				field += "." + p.field
			}
			bad(field, "%s", p.msg)
		}
		if len(probs) > 0 {
			continue
		}
		if h.RequestID != "" {
			bad(at, "a hook tied to a request (RequestID) is added while the request runs, with Plugin.AddForRequest")
			continue
		}
		if _, err := deliverable(&h); err != nil {
			bad(at+".lifecycle", "%v", err)
			continue
		}
		if j, dup := seen[h.ID()]; dup {
			bad(at, "hook %s is given twice (first at hooks[%d]): change its tag, type or lifecycle", h.ID(), j)
			continue
		}
		seen[h.ID()] = i
	}
	return errors.Join(errs...)
}

// Plugin is the guidance plugin. Build it with [New]; attach it to one
// server with framework.Server.Use (or to an app: session guidance still
// reaches every session, action guidance the app's entities only).
type Plugin struct {
	cfg    Config
	reg    *Registry
	loader Loader
	newErr error

	attached atomic.Bool
	pc       atomic.Pointer[framework.PluginContext]
	srv      atomic.Pointer[framework.Server]
	// progressHooked and samplingHooked: the hooks of ensureFlows are
	// registered.
	progressHooked, samplingHooked atomic.Bool
	logger                         atomic.Pointer[slog.Logger]
	compile                        sync.Mutex
	tables                         atomic.Pointer[tables]
	sessions                       *flows.SessionState[*session]
	// run is the per-request state of a tool call with request-level
	// guidance.
	run flows.Key[*request]
}

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

// New returns the guidance plugin configured by cfg and registers
// cfg.Hooks (with ContentDir as the FS of those without one); the errors
// of cfg ([Config.Validate]) are reported when the plugin is attached.
func New(cfg Config) *Plugin {
	if cfg.ContentDir != "" {
		dir := os.DirFS(cfg.ContentDir)
		cfg.Hooks = slices.Clone(cfg.Hooks)
		for i := range cfg.Hooks {
			if cfg.Hooks[i].FS == nil {
				cfg.Hooks[i].FS = dir
			}
		}
	}
	p := &Plugin{cfg: cfg, run: flows.NewKey[*request]("guidance.request"),
		sessions: flows.NewSessionState("guidance.session", newSession)}
	if p.cfg.Role == "" {
		p.cfg.Role = "assistant"
	}
	if p.cfg.WelcomePrompt == "" {
		p.cfg.WelcomePrompt = DefaultWelcomePrompt
	}
	reg, err := NewRegistry(cfg.App)
	if err != nil {
		p.newErr = fmt.Errorf("App: %w", err)
		reg, _ = NewRegistry("")
	}
	p.reg = reg
	if err := cfg.Validate(); err != nil {
		// Attach reports it; the registry would report the same hooks
		// again, in Go's names.
		p.newErr = err
	} else if p.newErr == nil {
		p.newErr = reg.Register(cfg.Hooks...)
	}
	p.logger.Store(slog.New(slog.DiscardHandler))
	return p
}

// Name returns "guidance".
func (p *Plugin) Name() string { return Name }

// Registry returns the plugin's registry. Hooks registered or removed
// there take effect from the next delivery.
func (p *Plugin) Registry() *Registry { return p.reg }

// Loader returns the plugin's content loader. After clearing it, call
// [Plugin.Reload] so that cached compositions are dropped too.
func (p *Plugin) Loader() *Loader { return &p.loader }

// Reload forgets every loaded content file and composition: the next
// deliveries read the files again.
func (p *Plugin) Reload() {
	p.compile.Lock()
	defer p.compile.Unlock()
	p.loader.Clear()
	p.tables.Store(nil)
}

// Attach validates the configuration and registers the plugin's hooks
// (see the package doc), its welcome prompt, and a dependency provider of
// the plugin itself, so that tools can take a *guidance.Plugin in their
// constructors (for Running and AddForRequest).
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.validate(); err != nil {
		return err
	}
	if !p.attached.CompareAndSwap(false, true) {
		return errors.New("the plugin is already attached; make one per server (guidance.New)")
	}
	logger := p.cfg.Logger
	if logger == nil {
		logger = pc.Server.Logger()
	}
	p.logger.Store(logger)
	p.srv.Store(pc.Server)
	var r framework.Registrar = pc.Server
	if pc.App != nil {
		r = pc.App
	}
	var errs []error
	if !p.cfg.NoWelcomePrompt {
		errs = append(errs, framework.AddPromptFunc(r, &mcp.Prompt{
			Name:        p.cfg.WelcomePrompt,
			Title:       "Welcome",
			Description: "What this server requires, recommends and allows in this session (RFC 2119 requirement levels).",
		}, p.welcome))
	}
	errs = append(errs,
		pc.Provide(func() *Plugin { return p }),
		pc.Hook(
			flows.Hook{Flow: flows.SessionInitialize, Stage: stages.AfterExecute, Name: "instructions", Fn: p.initialize},
			// After every hook of ordinary priority, so that a call
			// another hook blocks gets no start guidance; before the
			// cache plugin answers, so that a cached answer gets it.
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Priority: priority.Cache + 1, Name: "start", Fn: p.toolStart},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "finish", Fn: p.toolFinish},
			flows.Hook{Flow: flows.PromptsGetPrompt, Stage: stages.AfterExecute, Priority: priority.Cache + 1, Name: "prompt", Fn: p.promptGuidance},
			flows.Hook{Flow: flows.ResourcesReadResource, Stage: stages.AfterExecute, Priority: priority.Cache + 1, Name: "resource", Fn: p.resourceGuidance},
			flows.Hook{Flow: flows.LoggingSetLevel, Stage: stages.AfterExecute, Name: "flush", Fn: p.flush},
		),
	)
	p.pc.Store(pc)
	errs = append(errs, p.ensureFlows(p.reg.All()))
	return errors.Join(errs...)
}

// ensureFlows registers the hooks of the flows of what the server sends
// once hooks need them, so that a server without progress or running
// guidance sends its notifications and sampling requests without a run:
// notifications:from-server "progress" for progress hooks,
// sampling:create-message "running" for running hooks.
func (p *Plugin) ensureFlows(hooks []Hook) error {
	pc := p.pc.Load()
	if pc == nil {
		return nil // Attach registers them
	}
	var errs []error
	for i := range hooks {
		switch hooks[i].Lifecycle {
		case Progress:
			if p.progressHooked.CompareAndSwap(false, true) {
				errs = append(errs, pc.Hook(flows.Hook{Flow: flows.NotificationsFromServer, Stage: stages.BeforeExecute, Name: "progress", Fn: p.progress}))
			}
		case Running:
			if p.samplingHooked.CompareAndSwap(false, true) {
				errs = append(errs, pc.Hook(flows.Hook{Flow: flows.SamplingCreateMessage, Stage: stages.BeforeExecute, Name: "running", Fn: p.sampling}))
			}
		}
	}
	return errors.Join(errs...)
}

// validate checks the configuration and the hooks New registered.
func (p *Plugin) validate() error { return p.newErr }

// points returns the compiled delivery points of the registry's current
// hooks.
func (p *Plugin) points() *tables {
	s := p.reg.snap.Load()
	if t := p.tables.Load(); t != nil && t.general == s.general {
		return t
	}
	p.compile.Lock()
	defer p.compile.Unlock()
	s = p.reg.snap.Load()
	if t := p.tables.Load(); t != nil && t.general == s.general {
		return t
	}
	t := compile(s, p.logger.Load())
	p.tables.Store(t)
	if err := p.ensureFlows(s.hooks); err != nil {
		p.logger.Load().Error("guidance: cannot register the hooks that deliver progress and running guidance", "error", err.Error())
	}
	return t
}

// compose returns the composition of the point for a client with the
// given features: cached, or composed now (and then logged server-side
// when content failed to load).
func (p *Plugin) compose(pt *point, have Features) *Composed {
	if pt.empty() {
		return &Composed{}
	}
	key := have & pt.features
	if c := pt.composed[key].Load(); c != nil {
		return c
	}
	c := p.composeHooks(pt.hooks, key)
	pt.composed[key].CompareAndSwap(nil, c)
	return pt.composed[key].Load()
}

// composeHooks composes hooks in the plugin's environment for a client
// with the given features, without caching.
func (p *Plugin) composeHooks(hooks []Hook, have Features) *Composed {
	c := p.cfg.Composer.Compose(Env{Storage: p.cfg.Storage, Features: have, Settings: p.cfg.Settings}, hooks, &p.loader)
	logger := p.logger.Load()
	for _, f := range c.Failed {
		logger.Error("guidance: a hook's content failed to load; the hook is left out", "hook", f.ID, "error", f.Reason)
	}
	if logger.Enabled(context.Background(), slog.LevelDebug) {
		ids := func(s []Summary) []string {
			out := make([]string, len(s))
			for i, x := range s {
				out[i] = x.ID
			}
			return out
		}
		logger.Debug("guidance: composed", "features", have.String(), "included", ids(c.Included),
			"skipped", ids(c.Skipped), "failed", ids(c.Failed))
	}
	return c
}

// Check reports what can only be seen once the server has started: hooks
// whose target is a tool the server does not have (a typo there would
// deliver nothing, silently). Call it after the server's Start (with a
// gateway, after its upstreams are mounted). Prompts and resources are
// not checked.
func (p *Plugin) Check() error {
	srv := p.srv.Load()
	if srv == nil {
		return errors.New("guidance: the plugin is not attached to a started server (srv.Use(plugin), then srv.Start)")
	}
	var errs []error
	seen := map[string]bool{}
	for _, h := range p.reg.All() {
		if h.On.Kind != flows.EntityTool || h.On.Name == "" || seen[h.On.Name] {
			continue
		}
		seen[h.On.Name] = true
		if _, ok := srv.Tool(h.On.Name); !ok {
			errs = append(errs, fmt.Errorf("guidance: hook %s: the server has no tool %q", h.ID(), h.On.Name))
		}
	}
	return errors.Join(errs...)
}
