package intercept

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Plugin runs remote interceptors in a hookflow server's flows. Build it
// with [New], attach it to the server or an app, and [Plugin.Close] it when
// the server stops.
type Plugin struct {
	// given is the configuration New was given, which Validate checks;
	// cfg is what the plugin runs with (tokens and names resolved,
	// defaults filled in at Attach).
	given Config
	cfg   Config
	state flows.Key[*runState]

	mu       sync.Mutex
	attached bool
	conns    []*conn
	ics      []*interceptor
	passes   []*pass
	logger   *slog.Logger
}

// New returns the plugin configured by cfg; the configuration is checked
// (see [Config.Validate]), and the hosts connected and listed, when the
// plugin is attached (at the server's Start). New reads the token_env
// variables, and splits each policy's ID into Server and Interceptor.
func New(cfg Config) *Plugin {
	return &Plugin{given: cfg, cfg: cfg.resolved(), state: flows.NewKey[*runState]("intercept.run")}
}

// Name returns Config.Name, or "intercept".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "intercept"
}

// Attach checks the configuration, connects to every host and lists its
// interceptors, applies the policy, and registers one hook per interceptor
// in every flow and phase it applies to (see the package doc). A host that
// cannot be reached or listed stops the server from starting: the plugin
// does not start without the governance it was configured with.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.attached {
		return errors.New("the plugin is attached already: make one per server or app")
	}
	p.attached = true
	if err := p.given.Validate(); err != nil {
		return err
	}
	cfg := &p.cfg
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	} else if cfg.Timeout < 0 {
		cfg.Timeout = 0
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	p.logger = cfg.Logger
	if p.logger == nil {
		p.logger = pc.Server.Logger()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hookflow-intercept"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.ListParams, *wire.ListResult](client, wire.MethodList); err != nil {
		return err
	}
	if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](client, wire.MethodInvoke); err != nil {
		return err
	}
	ctx := context.Background()
	listed := make([][]wire.Interceptor, len(cfg.Servers))
	var errs []error
	for i, s := range cfg.Servers {
		c := newConn(s, client, cfg.ConnectTimeout, cfg.RetryAfter, p.logger)
		p.conns = append(p.conns, c)
		ds, err := c.list(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("Config.Servers[%d]: %w", i, err))
			continue
		}
		listed[i] = ds
	}
	if err := errors.Join(errs...); err != nil {
		p.closeConns()
		return err
	}
	ics, skipped, err := resolve(cfg, p.conns, listed)
	for _, s := range skipped {
		p.logger.Warn("intercept: interceptor skipped: the SEP says to skip a descriptor it does not define", "why", s)
	}
	if err != nil {
		p.closeConns()
		return err
	}
	p.ics = ics
	p.passes = passes(ics)
	var hooks []flows.Hook
	for _, ps := range p.passes {
		hooks = append(hooks, p.hooks(ps)...)
	}
	if err := pc.Hook(hooks...); err != nil {
		p.closeConns()
		return err
	}
	return nil
}

// hooks returns the hooks of one pass in run order: on data hookflow
// receives (a client's request, the result of a request hookflow sent its
// client) validate, then mutate: the validators then the mutators; on data
// it sends, the mutators then the validators (see [Receiving]). They share
// one priority, the phase's position, so they run in this order.
func (p *Plugin) hooks(ps *pass) []flows.Hook {
	stage, prio := Where(ps.phase)
	var vs, ms []flows.Hook
	for j, ic := range ps.validators {
		vs = append(vs, flows.Hook{Flow: ps.flow, Stage: stage, Priority: prio, Name: ic.id, Fn: p.validate(ps, j)})
	}
	for i, ic := range ps.mutators {
		ms = append(ms, flows.Hook{Flow: ps.flow, Stage: stage, Priority: prio, Name: ic.id, Fn: p.mutate(ps, i)})
	}
	if Receiving(ps.flow, ps.phase) {
		return append(vs, ms...)
	}
	return append(ms, vs...)
}

// Close closes the connections to the hosts (stopping the commands of
// stdio hosts). Invocations after Close fail, and fail closed unless the
// interceptor's policy says otherwise.
func (p *Plugin) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closeConns()
}

func (p *Plugin) closeConns() error {
	var errs []error
	for _, c := range p.conns {
		if err := c.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Step is one interceptor in the plan of a flow: where it runs and why.
type Step struct {
	// Flow and Phase are where the interceptor runs; Stage and Priority
	// the hookflow position its hook takes there.
	Flow  flows.ID
	Phase wire.Phase
	// Hook is the hook's name: "<server>:<interceptor>".
	Hook string
	// Type, Mode and FailOpen are the interceptor's, with the policy
	// applied.
	Type     wire.Type
	Mode     wire.Mode
	FailOpen bool
	// PriorityHint is the mutator's effective hint for Phase (0 for
	// validators).
	PriorityHint int32
}

// Plan returns the interceptors the plugin runs, flow by flow (in flow
// table order), phase by phase, in run order; nil before Attach.
func (p *Plugin) Plan() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Step
	for _, ps := range p.passes {
		for _, h := range p.hooks(ps) {
			ic := p.byID(h.Name)
			s := Step{Flow: ps.flow, Phase: ps.phase, Hook: ic.id, Type: ic.desc.Type, Mode: ic.mode, FailOpen: ic.failOpen}
			if ic.desc.Type == wire.Mutation {
				s.PriorityHint = ic.hint.For(ps.phase)
			}
			out = append(out, s)
		}
	}
	return out
}

func (p *Plugin) byID(id string) *interceptor {
	for _, ic := range p.ics {
		if ic.id == id {
			return ic
		}
	}
	return nil
}

var _ framework.Plugin = (*Plugin)(nil)
