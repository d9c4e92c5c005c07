package guidance

import (
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
)

// point is where a list of hooks is delivered: the session's start, or one
// lifecycle of a tool's, prompt's or resource's requests. It caches its
// composition per client feature set, which is all that varies between
// sessions: storage and settings are the plugin's.
type point struct {
	hooks []Hook // in registration order
	// features are the features some hook requires: two sessions whose
	// features agree on these get the same composition.
	features Features
	composed [featureSets]atomic.Pointer[Composed]
}

// empty reports whether no hook is delivered at the point.
func (pt *point) empty() bool { return pt == nil || len(pt.hooks) == 0 }

// entityPoints are the points of one entity kind: those of every entity
// of the kind (untargeted hooks), and, per name, those of the entities
// that have targeted hooks (which include the untargeted ones).
type entityPoints struct {
	all    [End + 1]*point
	byName map[string]*[End + 1]*point
}

// at returns the point of lifecycle l of the entity named name.
func (e *entityPoints) at(name string, l Lifecycle) *point {
	if named := e.byName[name]; named != nil {
		return named[l]
	}
	return e.all[l]
}

// tables are the compiled delivery points of a registry generation.
type tables struct {
	general   uint64 // the registry generation they were compiled from
	session   *point
	tools     entityPoints
	prompts   entityPoints
	resources entityPoints
	// cancels: some tool point has cancel hooks, so sessions may have
	// cancel guidance waiting for their next tool result.
	cancels bool
}

// deliverable reports where h is delivered, or why it never is.
func deliverable(h *Hook) (flows.EntityKind, error) {
	kind := h.On.Kind
	if kind == flows.EntityNone && h.Type == TypeAction {
		kind = flows.EntityTool
	}
	switch kind {
	case flows.EntityNone:
		if h.Lifecycle != Start {
			return 0, fmt.Errorf("a %s hook without a target (on) is delivered at the session's start only, so its lifecycle must be start", h.Type)
		}
	case flows.EntityPrompt, flows.EntityResource:
		if h.Lifecycle != Start && h.Lifecycle != End {
			return 0, fmt.Errorf("a %s's requests have no %s: its lifecycle must be start or end", kind, h.Lifecycle)
		}
	}
	return kind, nil
}

// compile builds the delivery points of the registry's hooks that are
// tied to no request. Hooks that are never delivered are logged.
func compile(s *snapshot, logger *slog.Logger) *tables {
	t := &tables{general: s.general, session: &point{}}
	kinds := map[flows.EntityKind]*entityPoints{flows.EntityTool: &t.tools, flows.EntityPrompt: &t.prompts, flows.EntityResource: &t.resources}
	for _, e := range kinds {
		for l := Start; l <= End; l++ {
			e.all[l] = &point{}
		}
	}
	// Untargeted hooks first, so that the named points can start from
	// them; each list keeps registration order.
	for pass := range 2 {
		for i := range s.hooks {
			h := &s.hooks[i]
			if h.RequestID != "" || (pass == 0) != (h.On.Name == "") {
				continue
			}
			kind, err := deliverable(h)
			if err != nil {
				logger.Warn("guidance: a hook is never delivered", "hook", h.ID(), "error", err.Error())
				continue
			}
			if kind == flows.EntityNone {
				t.session.add(h)
				continue
			}
			e := kinds[kind]
			if h.On.Name == "" {
				e.all[h.Lifecycle].add(h)
				continue
			}
			if e.byName == nil {
				e.byName = map[string]*[End + 1]*point{}
			}
			named := e.byName[h.On.Name]
			if named == nil {
				named = new([End + 1]*point)
				for l := Start; l <= End; l++ {
					named[l] = &point{hooks: append([]Hook(nil), e.all[l].hooks...), features: e.all[l].features}
				}
				e.byName[h.On.Name] = named
			}
			named[h.Lifecycle].add(h)
		}
	}
	t.cancels = !t.tools.all[Cancel].empty()
	for _, named := range t.tools.byName {
		t.cancels = t.cancels || !named[Cancel].empty()
	}
	return t
}

func (pt *point) add(h *Hook) {
	pt.hooks = append(pt.hooks, *h)
	pt.features |= h.Conditions.features()
}
