package command

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
	"github.com/hookflow/hookflow/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plugin is the command-hook plugin. Build it with [New], attach it to a
// server or an app, and [Plugin.Close] it when the server stops: Close
// kills the hooks still running.
type Plugin struct {
	cfg      Config
	attached bool

	hooks []*hook
	log   atomic.Pointer[slog.Logger]

	// shutdown is closed by Close: running hooks are killed and no new
	// one starts.
	shutdown  chan struct{}
	closeOnce sync.Once
	running   sync.WaitGroup
	mu        sync.Mutex // guards closed with running.Add
	closed    bool

	failures atomic.Uint64
	// sb runs the hooks' processes.
	sb *sandbox.Sandbox
	// srv is the server the plugin is attached to, whose tools mcp_tool
	// hooks call.
	srv *framework.Server
	// http is the client of the http hooks.
	http *http.Client
	// sessionIDs are the session IDs hooks read on transports without
	// one (see sessionRef).
	sessionIDs *flows.SessionState[*string]
	// secret signs the request state of questions asked by multi
	// round-trip (see hook.ask).
	secret [32]byte
}

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

// New returns the plugin configured by cfg. The configuration is read and
// checked, and every script hashed and looked up in the trust store, at
// Attach.
func New(cfg Config) *Plugin {
	p := &Plugin{cfg: cfg, shutdown: make(chan struct{}),
		sessionIDs: flows.NewSessionState("command.session-id", newSessionID)}
	_, _ = rand.Read(p.secret[:])
	return p
}

// Name returns Config.Name, or "command".
func (p *Plugin) Name() string {
	if p.cfg.Name == "" {
		return "command"
	}
	return p.cfg.Name
}

// Attach reads the settings, resolves each hook's command, checks its
// script against the trust store, and registers one hookflow hook per
// command hook, named after it, at its event's flow and stage, in the
// settings' order. Untrusted hooks fail Attach (or, with SkipUntrusted,
// are logged and left out), each named with the command that trusts it.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if p.attached {
		return errors.New("this Plugin value is already attached: build one per server or app with New")
	}
	p.attached = true
	if err := p.cfg.Validate(); err != nil {
		return err
	}
	cfg := p.cfg.withDefaults()
	p.cfg = cfg
	logger := cfg.Logger
	if logger == nil {
		logger = pc.Server.Logger()
	}
	p.log.Store(logger)
	store, err := trust.Load(cfg.TrustStore)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(cfg.Interpreters)
	if err != nil {
		return err
	}
	compiled, err := compile(cfg, sb, store, func(msg string, args ...any) { logger.Warn(msg, args...) })
	if err != nil {
		return err
	}
	env := baseEnv(cfg)
	if why := sb.Reap(true); why != "" {
		logger.Debug("command hooks: processes that leave their group are found by a marker in their environment, not a cgroup", "why", why)
	}
	p.sb = sb
	p.srv = pc.Server
	p.http = newHTTPClient()
	var untrusted []error
	var regs []flows.Hook
	for _, c := range compiled {
		if c.Trust != trust.Trusted {
			msg := untrustedMessage(c.HookInfo, cfg.TrustStore, c.File)
			if cfg.Untrusted == SkipUntrusted {
				logger.Warn("command hook skipped: "+msg, "hook", c.Name, "where", c.Where)
				continue
			}
			untrusted = append(untrusted, errors.New(c.Where+": "+msg))
			continue
		}
		h := newHook(p, c, env)
		p.hooks = append(p.hooks, h)
		regs = append(regs, flows.Hook{Flow: c.Event.Flow(), Stage: c.Event.Stage(), Priority: cfg.Priority, Name: c.Name, Fn: h.run,
			OnFailure: h.registered()})
	}
	if len(untrusted) > 0 {
		return errors.Join(untrusted...)
	}
	regs = append(regs, p.checkHooks(logger)...)
	if err := pc.Hook(regs...); err != nil {
		return err
	}
	owner := pc.Scope.Path()
	for _, h := range p.hooks {
		h.id = flows.HookID(owner, h.Event.Flow(), h.Event.Stage(), h.Name)
	}
	pc.AfterStart(p.checkTools)
	return nil
}

// checkTools refuses mcp_tool hooks whose server is not mapped or whose
// tool the server does not have, once it has every tool, each at its
// file:line:col; a lenient import's are left out with a warning.
func (p *Plugin) checkTools() error {
	var errs []error
	for _, h := range p.hooks {
		if h.mcp == nil {
			continue
		}
		cfg := p.cfg
		var err error
		if _, known := cfg.target(h.hook.Server, h.hook.Tool); !known {
			err = fmt.Errorf("%s: %s.server: %q is neither this server (server_name %q) nor one of mcp_servers (%s): map the agent's server name to the prefix of its tools here",
				h.Where, h.Path, h.hook.Server, cfg.ServerName, strings.Join(slices.Sorted(maps.Keys(cfg.MCPServers)), ", "))
		} else if _, ok := p.srv.Tool(h.mcp.target); !ok {
			err = fmt.Errorf("%s: %s.tool: %q of server %q is %s here, which this server does not have", h.Where, h.Path, h.hook.Tool, h.hook.Server, h.mcp.target)
		}
		switch {
		case err != nil && h.mcp.lenient:
			h.mcp.skip = true
			p.logger().Warn("command hooks: entry skipped (lenient): "+err.Error(), "hook", h.Name)
		case err != nil:
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkHooks are the plugin's hooks beside the command hooks: the
// warnings of tool matchers that select no tool and of clients without
// sampling for prompt hooks, and the context UserPromptSubmit hooks add
// to a prompt.
func (p *Plugin) checkHooks(logger *slog.Logger) []flows.Hook {
	cfg := p.cfg
	var regs []flows.Hook
	if tools := toolMatchers(p.hooks); len(tools) > 0 {
		var once sync.Once
		regs = append(regs, flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Priority: cfg.Priority,
			Name: "matcher-check", Fn: func(c *flows.Context) error {
				res, ok := c.Output().(*mcp.ListToolsResult)
				if !ok || res == nil {
					return nil
				}
				once.Do(func() { p.warnUnmatched(tools, res.Tools) })
				return nil
			}})
	}
	var prompted []string
	for _, h := range p.hooks {
		if _, ok := h.kind.(promptKind); ok {
			prompted = append(prompted, h.Name)
		}
	}
	if len(prompted) > 0 {
		logger.Info("command hooks: prompt hooks ask the client's model through MCP sampling; for a client without sampling they fail by their rule (a session without it is named in a warning)",
			"hooks", strings.Join(prompted, ", "))
		regs = append(regs, flows.Hook{Flow: flows.SessionInitialize, Stage: stages.AfterExecute, Priority: cfg.Priority,
			Name: "sampling-check", Fn: p.warnNoSampling(prompted)},
			flows.Hook{Flow: flows.LoggingSetLevel, Stage: stages.AfterExecute, Priority: cfg.Priority,
				Name: "sampling-notice", Fn: p.tellNoSampling(prompted)})
	}
	if slices.ContainsFunc(p.hooks, func(h *hook) bool { return h.Event == settings.UserPromptSubmit }) {
		regs = append(regs, flows.Hook{Flow: flows.PromptsGetPrompt, Stage: stages.AfterExecute, Priority: cfg.Priority,
			Name: "prompt-context", Fn: appendPromptContext})
	}
	return regs
}

// toolMatchers returns the hooks of tool events whose matcher selects
// some tools only.
func toolMatchers(hooks []*hook) []*hook {
	var out []*hook
	for _, h := range hooks {
		switch h.Event {
		case settings.PreToolUse, settings.PostToolUse, settings.PostToolUseFailure:
			if !h.match.all || h.match.cond != nil {
				out = append(out, h)
			}
		}
	}
	return out
}

// warnUnmatched warns, once, of each hook whose matcher selects none of
// the tools the server lists, by the names the hook knows them by (its
// toolNames, else the server's): a guard that never runs.
func (p *Plugin) warnUnmatched(hooks []*hook, tools []*mcp.Tool) {
	for _, h := range hooks {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = p.subjectName(t.Name)
			if tn, ok := h.tools.name(t.Name); ok {
				names[i] = tn
			}
		}
		if m := h.match.unmatched(h.Matcher, names); m != "" || h.match.cond != nil && !slices.ContainsFunc(names, h.match.cond.selects) {
			cond := ""
			if h.match.cond != nil {
				cond = h.match.cond.text
			}
			p.logger().Warn("command hook: its matcher selects none of the server's tools, so it never runs",
				"hook", h.Name, "matcher", cmpOr(m, h.Matcher), "if", cond, "where", h.Where, "tools", strings.Join(names, ","))
		}
	}
}

// untrustedMessage says why a hook does not run and how to trust it.
func untrustedMessage(h HookInfo, store, settingsFile string) string {
	what := fmt.Sprintf("command hook %q runs %s", h.Name, h.Identity)
	if h.Identity.Form == trust.FormHTTP || h.Identity.Form == trust.FormPrompt {
		what = fmt.Sprintf("the %s, named %q,", h.Identity, h.Name)
	}
	state := "which is not in the trust store " + store
	if h.Trust == trust.Changed {
		state = "which changed since it was trusted in " + store
	}
	review := "review the script"
	switch h.Identity.Form {
	case trust.FormScript:
	case trust.FormHTTP, trust.FormPrompt:
		review = "review the hook"
	default:
		review = "review the command"
	}
	return fmt.Sprintf("%s, %s; %s, then run: %s", what, state, review, h.TrustCommand(store, settingsFile))
}

// baseEnv is the environment every hook starts from: the allowed
// variables of the server's environment, the project directory, and
// Config.Env.
func baseEnv(cfg Config) map[string]string {
	env := map[string]string{}
	for _, k := range cfg.EnvAllow {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for _, v := range projectVars {
		env[v] = cfg.Dir
	}
	// Gemini CLI's name of the working directory; GEMINI_SESSION_ID is
	// set per run (see hook.exec).
	env["GEMINI_CWD"] = cfg.Dir
	for k, v := range cfg.Env {
		env[k] = v
	}
	return env
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// Hooks describes the hooks the plugin registered, in order.
func (p *Plugin) Hooks() []HookInfo {
	out := make([]HookInfo, len(p.hooks))
	for i, h := range p.hooks {
		out[i] = h.HookInfo
	}
	return out
}

// FailureCount returns how many hook failures the plugin has seen, of any
// kind and policy.
func (p *Plugin) FailureCount() uint64 { return p.failures.Load() }

// Close kills the hooks still running (SIGTERM to each process group,
// SIGKILL after the grace) and waits until every one is reaped, or ctx is
// done. Runs that start after Close fail with FailShutdown. Close may be
// called more than once.
func (p *Plugin) Close(ctx context.Context) error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.shutdown)
	})
	done := make(chan struct{})
	go func() {
		p.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// begin registers a process about to start; false once the plugin is
// closed.
func (p *Plugin) begin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.running.Add(1)
	return true
}

func (p *Plugin) logger() *slog.Logger {
	if l := p.log.Load(); l != nil {
		return l
	}
	return slog.Default()
}
