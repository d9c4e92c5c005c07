package scope

import (
	"reflect"
	"runtime"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// Hook is one hook registration: which flow and stage it runs at, its
// priority, and its function. It is a plain value; build it in code or let
// hookgen generate it from a //hook: directive.
type Hook struct {
	// Flow and Stage say where the hook runs.
	Flow  flows.ID
	Stage stages.Stage
	// Priority orders hooks within a stage: higher runs first; equal
	// priorities run in registration order. The default is 0.
	Priority int
	// Name identifies the hook within its owner, flow and stage. When empty
	// it is derived from the function's name, which is stable for a given
	// binary but unreadable for closures: name your hooks.
	Name string
	// Type is the Go type an embedded hook belongs to (a tool, resource or
	// prompt type). It must be set for embedded hooks and nil for external
	// ones.
	Type reflect.Type
	// Fn is the hook itself.
	Fn flows.HookFunc

	// Set by the registry.
	id       string
	owner    *Scope
	embedded bool
	seq      uint64
}

// ID returns the hook's stable identifier, computed at registration:
// "<owner>/<flow>/<stage>/<name>", where owner is the registering scope's
// path for external hooks and the Go type for embedded ones. Empty before
// registration.
func (h Hook) ID() string { return h.id }

// Owner returns the scope that registered the hook.
func (h Hook) Owner() *Scope { return h.owner }

// Embedded reports whether the hook was registered as an embedded hook of
// its Type.
func (h Hook) Embedded() bool { return h.embedded }

// computeID returns the ID h gets when s registers it.
func computeID(s *Scope, h *Hook, embedded bool) string {
	name := h.Name
	if name == "" && h.Fn != nil {
		name = funcName(h.Fn)
	}
	owner := s.Path()
	if embedded && h.Type != nil {
		owner = typeName(h.Type)
	}
	var b strings.Builder
	b.WriteString(owner)
	b.WriteByte('/')
	b.WriteString(string(h.Flow))
	b.WriteByte('/')
	b.WriteString(h.Stage.String())
	b.WriteByte('/')
	b.WriteString(name)
	return b.String()
}

func funcName(fn flows.HookFunc) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "func"
	}
	return f.Name()
}

func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}
