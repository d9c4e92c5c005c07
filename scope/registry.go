package scope

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
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
	all       []Hook // registration order
	byID      map[string]int
	byFlow    [flows.Count][]Hook
	byStage   [flows.Count][stages.Count][]Hook
	byOwner   map[*Scope]*[flows.Count][]Hook
	byType    map[reflect.Type][]Hook
	typeFlows map[reflect.Type]*[flows.Count][stages.Count][]Hook
}

func newRegistry() *registry {
	r := &registry{}
	r.snap.Store(buildSnapshot(0, nil))
	return r
}

func (r *registry) load() *snapshot { return r.snap.Load() }

// add validates hooks and registers them all, or none.
func (r *registry) add(owner *Scope, embedded bool, hooks []Hook) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	seen := make(map[string]bool, len(hooks))
	prepared := make([]Hook, len(hooks))
	ids := make([]string, len(hooks))
	for i, h := range hooks {
		if err := validate(&h, embedded); err != nil {
			return nil, err
		}
		h.id = computeID(owner, &h, embedded)
		if _, dup := old.byID[h.id]; dup || seen[h.id] {
			return nil, &flows.Error{Code: flows.CodeDuplicate, Flow: h.Flow, Stage: h.Stage, Hook: h.id,
				Msg: "a hook with this ID is already registered; give one of them a distinct Name"}
		}
		seen[h.id] = true
		h.owner = owner
		h.embedded = embedded
		r.seq++
		h.seq = r.seq
		prepared[i] = h
		ids[i] = h.id
	}
	all := make([]Hook, 0, len(old.all)+len(prepared))
	all = append(all, old.all...)
	all = append(all, prepared...)
	r.snap.Store(buildSnapshot(old.gen+1, all))
	return ids, nil
}

func validate(h *Hook, embedded bool) error {
	name := h.Name
	if name == "" {
		name = "(unnamed)"
	}
	fail := func(format string, args ...any) error {
		return &flows.Error{Code: flows.CodeInvalid, Flow: h.Flow, Msg: fmt.Sprintf("hook %q: ", name) + fmt.Sprintf(format, args...)}
	}
	if !h.Flow.Valid() {
		_, err := flows.Parse(string(h.Flow))
		return fail("%v", err)
	}
	if !h.Stage.Valid() {
		return fail("invalid stage %d", uint8(h.Stage))
	}
	if h.Fn == nil {
		return fail("nil hook function")
	}
	if embedded && h.Type == nil {
		return fail("an embedded hook needs the Type it belongs to")
	}
	if !embedded && h.Type != nil {
		return fail("an external hook must not set Type (register it as embedded)")
	}
	if embedded && h.Flow.Info().Entity == flows.EntityNone {
		return fail("flow %s resolves no entity, so it cannot have embedded hooks", h.Flow)
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
	all := make([]Hook, 0, len(old.all)-1)
	all = append(all, old.all[:i]...)
	all = append(all, old.all[i+1:]...)
	r.snap.Store(buildSnapshot(old.gen+1, all))
	return nil
}

// buildSnapshot builds every index from all, which is in registration order.
// Every index slice is sorted in run order (stage by stage; within a stage,
// descending priority, then registration order), so readers never sort.
func buildSnapshot(gen uint64, all []Hook) *snapshot {
	s := &snapshot{
		gen:       gen,
		all:       all,
		byID:      make(map[string]int, len(all)),
		byOwner:   make(map[*Scope]*[flows.Count][]Hook),
		byType:    make(map[reflect.Type][]Hook),
		typeFlows: make(map[reflect.Type]*[flows.Count][stages.Count][]Hook),
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
				o = new([flows.Count][]Hook)
				s.byOwner[h.owner] = o
			}
			o[f] = append(o[f], h)
			continue
		}
		s.byType[h.Type] = append(s.byType[h.Type], h)
		tf := s.typeFlows[h.Type]
		if tf == nil {
			tf = new([flows.Count][stages.Count][]Hook)
			s.typeFlows[h.Type] = tf
		}
		tf[f][h.Stage] = append(tf[f][h.Stage], h)
	}
	return s
}

// indexOrder orders hooks as the indexes list them: by flow, then stage by
// stage in run order, then in run order within a stage. Indexes that span
// several stages (FlowHooks, FlowHooksForOwner, TypeHooks) thus list hooks in
// the order a run calls them.
func indexOrder(a, b Hook) int {
	if c := cmp.Compare(a.Flow.Index(), b.Flow.Index()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Stage, b.Stage); c != 0 {
		return c
	}
	return runOrder(a, b)
}

// runOrder orders hooks as they run: descending priority, then registration
// order.
func runOrder(a, b Hook) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}
