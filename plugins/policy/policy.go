package policy

import (
	"cmp"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name: its hooks' IDs start with the scope path of
// "policy".
const Name = "policy"

// Plugin is the policy plugin. Build it with [New] and attach it with
// framework.Server.Use (or App.Use, to govern that app's entities only).
type Plugin struct {
	cfg      Config
	priority int
	// The rules, compiled by Attach: identity holds those that do not
	// read args (they decide lists, gets and reads too), args those that
	// do (calls and gets only).
	identity, args []rule
	logger         atomic.Pointer[slog.Logger]
	attached       atomic.Bool
}

// rule is a compiled [Rule].
type rule struct {
	name    string
	when    *expr // nil: every entity
	allow   *expr
	message string
}

// New returns the policy plugin configured by cfg. cfg is validated and
// its expressions compiled when the plugin is attached (at the server's
// Start), so that a bad rule stops the server with a message naming the
// plugin and the field.
func New(cfg Config) *Plugin {
	p := &Plugin{cfg: cfg, priority: cfg.Priority}
	p.cfg.Rules = append([]Rule(nil), cfg.Rules...)
	if p.priority == 0 {
		p.priority = priority.Auth - 10
	}
	return p
}

// Name returns "policy".
func (p *Plugin) Name() string { return Name }

// Attach compiles the rules and registers the plugin's hooks: on
// tools:call-tool, prompts:get-prompt and resources:read-resource
// beforeValidation, "rules" refuses what a rule that does not read args
// denies; on tools:call-tool and prompts:get-prompt afterValidation,
// "arguments" refuses what a rule that reads args denies, once the
// arguments are valid.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	identity, args, err := p.cfg.compile()
	if err != nil {
		return err
	}
	if !p.attached.CompareAndSwap(false, true) {
		return errors.New("the plugin is already attached; make one per server (policy.New)")
	}
	p.identity, p.args = identity, args
	p.logger.Store(cmp.Or(p.cfg.Logger, pc.Server.Logger()))
	var hooks []flows.Hook
	for _, f := range []flows.ID{flows.ToolsCallTool, flows.PromptsGetPrompt, flows.ResourcesReadResource} {
		if len(p.identity) > 0 {
			hooks = append(hooks, flows.Hook{Flow: f, Stage: stages.BeforeValidation, Priority: p.priority, Name: "rules", Fn: p.identityHook})
		}
		if len(p.args) > 0 && f != flows.ResourcesReadResource {
			hooks = append(hooks, flows.Hook{Flow: f, Stage: stages.AfterValidation, Priority: p.priority, Name: "arguments", Fn: p.argsHook})
		}
	}
	return pc.Hook(hooks...)
}

// RuleError is why a call, get or read was refused: a rule denied it.
// Hooks that run after the plugin (an audit plugin's finally hook) find
// it with errors.As on the run's error.
type RuleError struct {
	// Rule is the name of the rule that denied.
	Rule string
	// Entity is the name of the tool or prompt, or the resource's URI.
	Entity string
	// Message is the rule's Message: what the client reads.
	Message string
}

// Error returns the rule's message.
func (e *RuleError) Error() string { return e.Message }

// denied returns the first of rules that governs v and does not allow
// it, or nil.
func (p *Plugin) denied(rules []rule, v *vars) *rule {
	for i := range rules {
		r := &rules[i]
		if r.when != nil {
			ok, err := r.when.eval(v)
			if err != nil {
				p.evalFailed(r, "when", err)
				return r
			}
			if !ok {
				continue
			}
		}
		ok, err := r.allow.eval(v)
		if err != nil {
			p.evalFailed(r, "allow", err)
			return r
		}
		if !ok {
			return r
		}
	}
	return nil
}

// evalFailed logs a rule that could not be evaluated: it denies.
func (p *Plugin) evalFailed(r *rule, which string, err error) {
	p.logger.Load().Warn("policy: a rule failed to evaluate, and denies", "rule", r.name, "expression", which, "error", err)
}

// identityHook refuses a call, get or read that a rule not reading args
// denies.
func (p *Plugin) identityHook(c *flows.Context) error {
	e := c.Entity()
	if e == nil {
		return nil
	}
	r := c.Request()
	v := &vars{principal: principalOf(r), claims: claimsOf(r), client: clientOf(r), entity: entityOf(e)}
	return p.refuse(c, p.denied(p.identity, v))
}

// argsHook refuses a call or get that a rule reading args denies.
func (p *Plugin) argsHook(c *flows.Context) error {
	e := c.Entity()
	if e == nil {
		return nil
	}
	args, err := p.arguments(c)
	if err != nil {
		return err
	}
	r := c.Request()
	v := &vars{principal: principalOf(r), claims: claimsOf(r), client: clientOf(r), entity: entityOf(e), args: args}
	return p.refuse(c, p.denied(p.args, v))
}

// arguments returns the run's arguments as rules read them: a tool's
// validated arguments, or a prompt's.
func (p *Plugin) arguments(c *flows.Context) (map[string]any, error) {
	if raw := c.Arguments(); raw != nil {
		return argumentsOf(raw)
	}
	args := map[string]any{}
	if in, ok := c.Input().(interface{ GetArguments() map[string]string }); ok {
		for k, v := range in.GetArguments() {
			args[k] = v
		}
	}
	return args, nil
}

// refuse returns the error of a denial by r (nil for none), and logs it.
func (p *Plugin) refuse(c *flows.Context, r *rule) error {
	if r == nil {
		return nil
	}
	req := c.Request()
	p.logger.Load().LogAttrs(c.Context(), slog.LevelDebug, "policy: denied",
		slog.String("rule", r.name),
		slog.String("entity", c.Entity().Name),
		slog.String("principal", req.Principal()),
		slog.String("session", req.SessionID),
		slog.String("request", req.ID))
	return &RuleError{Rule: r.name, Entity: c.Entity().Name, Message: r.message}
}

// Visible implements framework.Visibility: an entity a rule that does not
// read args denies is left out of lists; with Config.Conceal it is hidden,
// unknown to calls as well. Rules that read args do not decide lists.
func (p *Plugin) Visible(r *flows.Request, e *flows.Entity) framework.Sight {
	if len(p.identity) == 0 || r == nil {
		return framework.Shown
	}
	v := &vars{principal: principalOf(r), claims: claimsOf(r), client: clientOf(r), entity: entityOf(e)}
	if p.denied(p.identity, v) == nil {
		return framework.Shown
	}
	if p.cfg.Conceal {
		return framework.Hidden
	}
	return framework.Unlisted
}

// The plugin is a framework.Plugin and, deciding what a caller sees, a
// framework.Visibility: a wrong method shape fails to compile.
var (
	_ framework.Plugin     = (*Plugin)(nil)
	_ framework.Visibility = (*Plugin)(nil)
)
