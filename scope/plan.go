package scope

import (
	"errors"
	"reflect"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// PlanRef is a handle to the compiled hook plan of one flow for one target
// (an entity's Go type and the scope the entity belongs to). Get a PlanRef
// once, at start-up, with [Scope.Plan], and call [PlanRef.Load] per request:
// Load returns the cached plan, recompiling only after the registry changed.
type PlanRef struct {
	reg    *registry
	flow   flows.ID
	entity *flows.Entity
	typ    reflect.Type
	target *Scope
	cached atomic.Pointer[compiledPlan]
}

type compiledPlan struct {
	gen  uint64
	plan flows.Plan
}

// Plan returns a handle to the plan of flow for entity, which belongs to
// the scope target (nil means s): the external hooks whose owner covers
// target, merged with the embedded hooks of entity.Type. entity is nil for
// flows that resolve no entity; such flows run the external hooks of every
// owner. A typed hook that does not fit the entity ([flows.Hook.Check]) is
// planned as a hook that fails the run with its check's error; call
// [PlanRef.Check] when the entity is added to report it then.
func (s *Scope) Plan(flow flows.ID, entity *flows.Entity, target *Scope) *PlanRef {
	if target == nil {
		target = s
	}
	p := &PlanRef{reg: s.reg, flow: flow, entity: entity, target: target}
	if entity != nil {
		p.typ = baseType(entity.Type)
	}
	return p
}

// Check returns the errors of the plan's typed hooks that do not fit its
// entity ([flows.Hook.Check]), joined; nil when all fit.
func (p *PlanRef) Check() error {
	var errs []error
	for _, st := range p.Load().Stages {
		for _, e := range st {
			if e.Check != nil {
				errs = append(errs, e.Check)
			}
		}
	}
	return errors.Join(errs...)
}

// Load returns the current compiled plan. In the steady state it is two
// atomic loads and a comparison: no lock, no map, no allocation.
func (p *PlanRef) Load() *flows.Plan {
	snap := p.reg.load()
	if c := p.cached.Load(); c != nil && c.gen == snap.gen {
		return &c.plan
	}
	c := p.compile(snap)
	p.cached.Store(c)
	return &c.plan
}

// compile merges, per stage, the external hooks that cover the target with
// the target type's embedded hooks, keeping run order.
func (p *PlanRef) compile(snap *snapshot) *compiledPlan {
	c := &compiledPlan{gen: snap.gen, plan: flows.Plan{Flow: p.flow}}
	f := p.flow.Index()
	if f < 0 {
		return c
	}
	entityless := p.flow.Info().Entity == flows.EntityNone
	var typed *[flows.Count][stages.Count][]Registration
	if p.typ != nil {
		typed = snap.typeFlows[p.typ]
	}
	for st := range stages.Count {
		var external []Registration
		for _, h := range snap.byStage[f][st] {
			if h.embedded {
				continue
			}
			if entityless || h.owner.Covers(p.target) {
				external = append(external, h)
			}
		}
		var embedded []Registration
		if typed != nil {
			embedded = typed[f][st]
		}
		if len(external)+len(embedded) == 0 {
			continue
		}
		out := make([]flows.PlanEntry, 0, len(external)+len(embedded))
		i, j := 0, 0
		for i < len(external) || j < len(embedded) {
			var h Registration
			if j >= len(embedded) || (i < len(external) && runOrder(external[i], embedded[j]) <= 0) {
				h, i = external[i], i+1
			} else {
				h, j = embedded[j], j+1
			}
			e := flows.PlanEntry{ID: h.id, Priority: h.Priority, Fn: h.Fn, Timeout: h.Timeout, OnFailure: h.OnFailure}
			if err := h.Check(p.entity); err != nil {
				e.Check = err
				e.Fn = func(*flows.Context) error { return err }
			}
			out = append(out, e)
		}
		c.plan.Stages[st] = out
	}
	return c
}
