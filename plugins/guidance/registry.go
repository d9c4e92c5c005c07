package guidance

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
)

// Registry stores guidance hooks by ID. Reads (Query, Get, All) are
// lock-free, from an immutable snapshot; writes copy it. A Registry is
// safe for concurrent use.
type Registry struct {
	app  string
	mu   sync.Mutex // serializes writers
	snap atomic.Pointer[snapshot]
}

// snapshot is an immutable state of a registry.
type snapshot struct {
	hooks []Hook         // in registration order
	byID  map[string]int // index in hooks
	// general counts the changes to hooks without a RequestID: what the
	// plugin compiles its delivery tables from.
	general uint64
	// tied is the number of hooks with a RequestID.
	tied int
}

// NewRegistry returns an empty registry whose hooks without an app get
// app ("" means DefaultApp).
func NewRegistry(app string) (*Registry, error) {
	if app == "" {
		app = DefaultApp
	}
	if err := CheckTag(app); err != nil {
		return nil, &flows.Error{Code: flows.CodeInvalid, Msg: "guidance: app", Err: err}
	}
	r := &Registry{app: app}
	r.snap.Store(&snapshot{byID: map[string]int{}})
	return r, nil
}

// App returns the registry's app.
func (r *Registry) App() string { return r.app }

// Register adds hooks, all or none. Each gets the registry's app when it
// has none, and is validated ([Hook.Validate]); an ID that is already
// registered, or given twice, is an error with code
// flows.CodeDuplicate, any other problem one with flows.CodeInvalid.
func (r *Registry) Register(hooks ...Hook) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	next := &snapshot{hooks: slices.Clip(old.hooks), byID: old.byID, general: old.general, tied: old.tied}
	var invalid, dups []error
	added := map[string]bool{}
	for _, h := range hooks {
		if h.App == "" {
			h.App = r.app
		}
		if err := h.Validate(); err != nil {
			invalid = append(invalid, err)
			continue
		}
		id := h.ID()
		if _, dup := old.byID[id]; dup || added[id] {
			dups = append(dups, fmt.Errorf("hook %s is already registered", id))
			continue
		}
		added[id] = true
		next.hooks = append(next.hooks, h)
		if h.RequestID == "" {
			next.general++
		} else {
			next.tied++
		}
	}
	if invalid != nil {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "guidance: invalid hooks", Err: errors.Join(append(invalid, dups...)...)}
	}
	if dups != nil {
		return &flows.Error{Code: flows.CodeDuplicate, Msg: "guidance: duplicate hooks", Err: errors.Join(dups...)}
	}
	next.reindex()
	r.snap.Store(next)
	return nil
}

func (s *snapshot) reindex() {
	s.byID = make(map[string]int, len(s.hooks))
	for i := range s.hooks {
		s.byID[s.hooks[i].ID()] = i
	}
}

// Query selects hooks. A zero field matches every hook; the others must
// all match.
type Query struct {
	App       string    `json:"app,omitempty"`
	Type      Type      `json:"type,omitzero"`
	Lifecycle Lifecycle `json:"lifecycle,omitzero"`
	Tag       string    `json:"tag,omitempty"`
	// RequestID selects the hooks tied to one request.
	RequestID string `json:"requestId,omitempty"`
}

func (q *Query) match(h *Hook) bool {
	return (q.App == "" || q.App == h.App) &&
		(q.Type == 0 || q.Type == h.Type) &&
		(q.Lifecycle == 0 || q.Lifecycle == h.Lifecycle) &&
		(q.Tag == "" || q.Tag == h.Tag) &&
		(q.RequestID == "" || q.RequestID == h.RequestID)
}

// Query returns the hooks q selects, in registration order.
func (r *Registry) Query(q Query) []Hook {
	s := r.snap.Load()
	var out []Hook
	for i := range s.hooks {
		if h := &s.hooks[i]; q.match(h) {
			out = append(out, *h)
		}
	}
	return out
}

// Get returns the hook with the given ID.
func (r *Registry) Get(id string) (Hook, bool) {
	s := r.snap.Load()
	i, ok := s.byID[id]
	if !ok {
		return Hook{}, false
	}
	return s.hooks[i], true
}

// Has reports whether a hook with the given ID is registered.
func (r *Registry) Has(id string) bool {
	_, ok := r.snap.Load().byID[id]
	return ok
}

// All returns every hook, in registration order.
func (r *Registry) All() []Hook { return slices.Clone(r.snap.Load().hooks) }

// Len returns the number of hooks.
func (r *Registry) Len() int { return len(r.snap.Load().hooks) }

// Unregister removes the hook with the given ID and reports whether there
// was one.
func (r *Registry) Unregister(id string) bool {
	return r.remove(func(h *Hook) bool { return h.ID() == id }) > 0
}

// Clear removes every hook.
func (r *Registry) Clear() { r.remove(func(*Hook) bool { return true }) }

// unregisterRequest removes the hooks tied to the request id.
func (r *Registry) unregisterRequest(id string) {
	if r.snap.Load().tied == 0 {
		return
	}
	r.remove(func(h *Hook) bool { return h.RequestID == id })
}

// remove deletes the hooks drop selects and returns how many.
func (r *Registry) remove(drop func(*Hook) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	next := &snapshot{general: old.general, tied: old.tied}
	for i := range old.hooks {
		h := &old.hooks[i]
		switch {
		case !drop(h):
			next.hooks = append(next.hooks, *h)
		case h.RequestID == "":
			next.general++
		default:
			next.tied--
		}
	}
	n := len(old.hooks) - len(next.hooks)
	if n == 0 {
		return 0
	}
	next.reindex()
	r.snap.Store(next)
	return n
}

// requestHooks returns the hooks tied to the request id with lifecycle
// l; nil (without a scan) when no hook is tied to any request.
func (r *Registry) requestHooks(id string, l Lifecycle) []Hook {
	s := r.snap.Load()
	if s.tied == 0 || id == "" {
		return nil
	}
	var out []Hook
	for i := range s.hooks {
		if h := &s.hooks[i]; h.RequestID == id && h.Lifecycle == l {
			out = append(out, *h)
		}
	}
	return out
}
