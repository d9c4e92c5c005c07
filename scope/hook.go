package scope

import (
	"reflect"
	"runtime"

	"github.com/hookflow/hookflow/flows"
)

// Registration is a hook as the registry holds it: the [flows.Hook] that
// was registered, plus what registering it decided (its ID, owner, and the
// Go type it is embedded in). The registry's queries return Registrations.
type Registration struct {
	flows.Hook

	id       string
	owner    *Scope
	typ      reflect.Type
	embedded bool
	seq      uint64
}

// ID returns the hook's stable identifier, computed at registration by
// [flows.HookID]: "<owner>/<flow>/<stage>/<name>", where owner is the
// registering scope's path for external hooks and the Go type for embedded
// ones.
func (r Registration) ID() string { return r.id }

// Owner returns the scope that registered the hook.
func (r Registration) Owner() *Scope { return r.owner }

// Embedded reports whether the hook is an embedded hook of [Registration.Type].
func (r Registration) Embedded() bool { return r.embedded }

// Type returns the Go type an embedded hook belongs to, nil for an external
// hook.
func (r Registration) Type() reflect.Type { return r.typ }

// Seq returns the hook's registration sequence number: among hooks of equal
// priority, the lower number runs first.
func (r Registration) Seq() uint64 { return r.seq }

// computeID returns the ID h gets when s registers it (embedded in typ when
// typ is non-nil).
func computeID(s *Scope, h *flows.Hook, typ reflect.Type) string {
	name := h.Name
	if name == "" && h.Fn != nil {
		name = funcName(h.Fn)
	}
	owner := s.Path()
	if typ != nil {
		owner = TypeName(typ)
	}
	return flows.HookID(owner, h.Flow, h.Stage, name)
}

func funcName(fn flows.HookFunc) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "func"
	}
	return f.Name()
}

// TypeName returns the name embedded hooks of t use as their owner: the
// package path and type name, without pointers ("example.com/weather.GetWeather"
// for both GetWeather and *GetWeather).
func TypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}
