package intercept

import (
	"context"
	"errors"
	"sync"

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
	k     core
	state flows.Key[*runState]

	mu       sync.Mutex
	attached bool
	passes   []*pass
}

// New returns the plugin configured by cfg; the configuration is checked
// (see [Config.Validate]), and the hosts connected and listed, when the
// plugin is attached (at the server's Start). New reads the token_env
// variables, and splits each policy's ID into Server and Interceptor.
func New(cfg Config) *Plugin {
	return &Plugin{given: cfg, k: core{cfg: cfg.resolved()}, state: flows.NewKey[*runState]("intercept.run")}
}

// Name returns Config.Name, or "intercept".
func (p *Plugin) Name() string {
	if p.k.cfg.Name != "" {
		return p.k.cfg.Name
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
	if err := p.k.open(context.Background(), pc.Server.Logger()); err != nil {
		return err
	}
	p.passes = passes(p.k.ics)
	var hooks []flows.Hook
	for _, ps := range p.passes {
		hooks = append(hooks, p.hooks(ps)...)
	}
	if err := pc.Hook(hooks...); err != nil {
		p.k.close()
		return err
	}
	return nil
}

// hooks returns the hooks of one pass in run order: on data hookflow
// receives (a client's request, the result of a request hookflow sent its
// client) validate, then mutate: the validators then the mutators; on data
// it sends, the mutators then the validators (see [DirectionOf]). They share
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
	if DirectionOf(ps.flow, ps.phase) == Receive {
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
	return p.k.close()
}

// Step is one interceptor in the plan of a flow: where it runs and why.
type Step struct {
	// Flow and Phase are where the interceptor runs; Stage and Priority
	// the hookflow position its hook takes there.
	Flow  flows.ID
	Phase wire.Phase
	// Direction is the way the phase's payload crosses the server's
	// boundary, which orders its pass ([DirectionOf]).
	Direction Direction
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
			s := Step{Flow: ps.flow, Phase: ps.phase, Direction: DirectionOf(ps.flow, ps.phase), Hook: ic.id,
				Type: ic.desc.Type, Mode: ic.mode, FailOpen: ic.failOpen}
			if ic.desc.Type == wire.Mutation {
				s.PriorityHint = ic.hint.For(ps.phase)
			}
			out = append(out, s)
		}
	}
	return out
}

func (p *Plugin) byID(id string) *interceptor {
	for _, ic := range p.k.ics {
		if ic.id == id {
			return ic
		}
	}
	return nil
}

var _ framework.Plugin = (*Plugin)(nil)
