package scope

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// registry is the hook registry shared by a root scope and all its children.
// Reads load an immutable snapshot; writes build a new one under mu.
type registry struct {
	mu   sync.Mutex
	seq  uint64
	snap atomic.Pointer[snapshot]
}

// snapshot is one immutable state of the registry and its indexes.
type snapshot struct {
	gen       uint64
	all       []Registration // registration order
	byID      map[string]int
	byFlow    [flows.Count][]Registration
	byStage   [flows.Count][stages.Count][]Registration
	byOwner   map[*Scope]*[flows.Count][]Registration
	byType    map[reflect.Type][]Registration
	typeFlows map[reflect.Type]*[flows.Count][stages.Count][]Registration
}

func newRegistry() *registry {
	r := &registry{}
	r.snap.Store(buildSnapshot(0, nil))
	return r
}

func (r *registry) load() *snapshot { return r.snap.Load() }

// add validates hooks and registers them all, or none. typ is the Go type
// embedded hooks belong to; nil registers external hooks.
func (r *registry) add(owner *Scope, typ reflect.Type, hooks []flows.Hook) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	seen := make(map[string]bool, len(hooks))
	prepared := make([]Registration, len(hooks))
	ids := make([]string, len(hooks))
	for i, h := range hooks {
		if err := validate(h, typ); err != nil {
			return nil, err
		}
		reg := Registration{Hook: h, id: computeID(owner, &h, typ), owner: owner, typ: typ, embedded: typ != nil}
		if _, dup := old.byID[reg.id]; dup || seen[reg.id] {
			return nil, &flows.Error{Code: flows.CodeDuplicate, Flow: h.Flow, Stage: h.Stage, Hook: reg.id,
				Msg: "a hook with this ID is already registered; give one of them a distinct Name"}
		}
		seen[reg.id] = true
		r.seq++
		reg.seq = r.seq
		prepared[i] = reg
		ids[i] = reg.id
	}
	all := make([]Registration, 0, len(old.all)+len(prepared))
	all = append(all, old.all...)
	all = append(all, prepared...)
	r.snap.Store(buildSnapshot(old.gen+1, all))
	return ids, nil
}

func validate(h flows.Hook, typ reflect.Type) error {
	if err := h.Validate(); err != nil {
		return err
	}
	if typ != nil && h.Flow.Info().Entity == flows.EntityNone {
		return &flows.Error{Code: flows.CodeInvalid, Flow: h.Flow,
			Msg: fmt.Sprintf("hook %q: flow %s resolves no entity, so it cannot have embedded hooks", h.Name, h.Flow)}
	}
	return nil
}

func (r *registry) remove(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	i, ok := old.byID[id]
	if !ok {
		return &flows.Error{Code: flows.CodeNotFound, Hook: id, Msg: "no hook with this ID is registered"}
	}
	all := make([]Registration, 0, len(old.all)-1)
	all = append(all, old.all[:i]...)
	all = append(all, old.all[i+1:]...)
	r.snap.Store(buildSnapshot(old.gen+1, all))
	return nil
}

// buildSnapshot builds every index from all, which is in registration order.
// Every index slice is sorted in run order (stage by stage; within a stage,
// descending priority, then registration order), so readers never sort.
func buildSnapshot(gen uint64, all []Registration) *snapshot {
	s := &snapshot{
		gen:       gen,
		all:       all,
		byID:      make(map[string]int, len(all)),
		byOwner:   make(map[*Scope]*[flows.Count][]Registration),
		byType:    make(map[reflect.Type][]Registration),
		typeFlows: make(map[reflect.Type]*[flows.Count][stages.Count][]Registration),
	}
	sorted := slices.Clone(all)
	slices.SortStableFunc(sorted, indexOrder)
	for i, h := range all {
		s.byID[h.id] = i
	}
	for _, h := range sorted {
		f := h.Flow.Index()
		s.byFlow[f] = append(s.byFlow[f], h)
		s.byStage[f][h.Stage] = append(s.byStage[f][h.Stage], h)
		if !h.embedded {
			o := s.byOwner[h.owner]
			if o == nil {
				o = new([flows.Count][]Registration)
				s.byOwner[h.owner] = o
			}
			o[f] = append(o[f], h)
			continue
		}
		s.byType[h.typ] = append(s.byType[h.typ], h)
		tf := s.typeFlows[h.typ]
		if tf == nil {
			tf = new([flows.Count][stages.Count][]Registration)
			s.typeFlows[h.typ] = tf
		}
		tf[f][h.Stage] = append(tf[f][h.Stage], h)
	}
	return s
}

// indexOrder orders hooks as the indexes list them: by flow, then stage by
// stage in run order, then in run order within a stage. Indexes that span
// several stages (FlowHooks, FlowHooksForOwner, TypeHooks) thus list hooks in
// the order a run calls them.
func indexOrder(a, b Registration) int {
	if c := cmp.Compare(a.Flow.Index(), b.Flow.Index()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Stage, b.Stage); c != 0 {
		return c
	}
	return runOrder(a, b)
}

// runOrder orders hooks as they run: the one rule, [priority.Compare].
func runOrder(a, b Registration) int {
	return priority.Compare(a.Priority, a.seq, b.Priority, b.seq)
}
