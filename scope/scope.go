package scope

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"go.uber.org/dig"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// Kind says what a scope stands for.
type Kind uint8

// The scope kinds.
const (
	// KindRoot is a server's scope: its hooks apply to every entity.
	KindRoot Kind = iota
	// KindApp is an app's scope: its hooks apply to the app's entities only.
	KindApp
	// KindPlugin is a plugin's scope: its hooks apply where the scope it is
	// attached to (its parent) applies.
	KindPlugin
)

var kindNames = [...]string{"root", "app", "plugin"}

// String returns "root", "app" or "plugin".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Scope is a node of the scope tree: a server (the root), an app, or a
// plugin. All scopes of a tree share one hook registry; each scope owns the
// hooks it registers and a dig container that sees its parent's providers.
//
// A Scope is safe for concurrent use. Reads of the registry are lock-free;
// registrations copy the registry on write.
type Scope struct {
	name   string
	kind   Kind
	parent *Scope
	path   string
	reg    *registry
	di     container

	// mu guards children, the paths of the child scopes made by Child.
	mu       sync.Mutex
	children map[string]struct{}
}

// container is what *dig.Container and *dig.Scope have in common.
type container interface {
	Provide(constructor any, opts ...dig.ProvideOption) error
	Invoke(function any, opts ...dig.InvokeOption) error
	Decorate(decorator any, opts ...dig.DecorateOption) error
	Scope(name string, opts ...dig.ScopeOption) *dig.Scope
}

// New returns a root scope named name (e.g. the server's name) with an empty
// registry and a new dig container.
func New(name string) *Scope {
	if name == "" {
		name = "server"
	}
	return &Scope{name: name, kind: KindRoot, path: name, reg: newRegistry(), di: dig.New()}
}

// Child returns a new child scope of s. An app's hooks apply to the entities
// of that app; a plugin's hooks apply where s applies. The child's dig
// container sees the providers of s and its ancestors; s does not see the
// child's. The name must be non-empty and unique among s's children of the
// same kind (the path is the hooks' owner in their IDs): a second child with
// the kind and name of an existing one is refused with CodeDuplicate.
func (s *Scope) Child(kind Kind, name string) (*Scope, error) {
	if kind == KindRoot {
		return nil, &flows.Error{Code: flows.CodeInvalid, Msg: "a child scope cannot be a root scope"}
	}
	if name == "" || strings.ContainsAny(name, "/ ") {
		return nil, &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("scope name %q must be non-empty, without '/' or spaces", name)}
	}
	path := ChildPath(s.path, kind, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.children[path]; dup {
		return nil, &flows.Error{Code: flows.CodeDuplicate, Msg: fmt.Sprintf("scope %s already has a child %s %q", s.path, kind, name)}
	}
	if s.children == nil {
		s.children = map[string]struct{}{}
	}
	s.children[path] = struct{}{}
	return &Scope{name: name, kind: kind, parent: s, path: path, reg: s.reg, di: s.di.Scope(path)}, nil
}

// Name returns the scope's name.
func (s *Scope) Name() string { return s.name }

// Kind returns the scope's kind.
func (s *Scope) Kind() Kind { return s.kind }

// Parent returns the parent scope, or nil for a root.
func (s *Scope) Parent() *Scope { return s.parent }

// Path returns the scope's path from the root, e.g. "server/app:billing/plugin:audit".
func (s *Scope) Path() string { return s.path }

// String returns the scope's path.
func (s *Scope) String() string { return s.path }

// Root returns the root of s's tree.
func (s *Scope) Root() *Scope {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

// Reach returns the scope whose entities s's hooks apply to: s itself for a
// root or an app, the nearest non-plugin ancestor for a plugin.
func (s *Scope) Reach() *Scope {
	for s.kind == KindPlugin && s.parent != nil {
		s = s.parent
	}
	return s
}

// Covers reports whether hooks owned by s apply to entities that belong to
// the scope target: s's reach is target or one of its ancestors.
func (s *Scope) Covers(target *Scope) bool {
	reach := s.Reach()
	for t := target; t != nil; t = t.parent {
		if t == reach {
			return true
		}
	}
	return false
}

// Register validates hooks and adds them to the registry as external hooks
// owned by s, all or none: they run for every entity s covers (and in flows
// without an entity). It returns the hooks' IDs in order. Errors are
// *flows.Error with CodeInvalid (see [flows.Hook.Validate]) or
// CodeDuplicate, and name the hook.
func (s *Scope) Register(hooks ...flows.Hook) ([]string, error) {
	return s.reg.add(s, nil, hooks)
}

// RegisterEmbedded validates hooks and adds them to the registry as
// embedded hooks of the Go type t, all or none: they run only for entities
// declared by t, in the flows that resolve an entity. *T and T are one type
// here: hooks registered for either run for entities of either. Errors are
// as for [Scope.Register].
func (s *Scope) RegisterEmbedded(t reflect.Type, hooks ...flows.Hook) ([]string, error) {
	if t == nil {
		err := &flows.Error{Code: flows.CodeInvalid, Msg: "RegisterEmbedded: nil entity type"}
		if len(hooks) > 0 {
			err.Flow, err.Msg = hooks[0].Flow, fmt.Sprintf("hook %q: nil entity type", hooks[0].Name)
		}
		return nil, err
	}
	return s.reg.add(s, baseType(t), hooks)
}

// baseType returns t without pointers: the key of embedded hooks.
func baseType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// Unregister removes the hook with the given ID, whoever owns it. Compiled
// plans see the change on their next load.
func (s *Scope) Unregister(id string) error { return s.reg.remove(id) }

// Hooks returns every registered hook of the tree in registration order. The
// slice is shared and must not be modified.
func (s *Scope) Hooks() []Registration { return s.reg.load().all }

// Hook returns the registered hook with the given ID.
func (s *Scope) Hook(id string) (Registration, bool) {
	snap := s.reg.load()
	i, ok := snap.byID[id]
	if !ok {
		return Registration{}, false
	}
	return snap.all[i], true
}

// FlowHooks returns the hooks of flow, all stages and owners, in run order:
// stage by stage, and within a stage by descending priority, then
// registration order.
// The slice is shared and must not be modified.
func (s *Scope) FlowHooks(flow flows.ID) []Registration {
	i := flow.Index()
	if i < 0 {
		return nil
	}
	return s.reg.load().byFlow[i]
}

// FlowStageHooks returns the hooks of flow at stage, all owners, in run
// order. It is O(1) and allocation-free whatever the registry's size. The
// slice is shared and must not be modified.
func (s *Scope) FlowStageHooks(flow flows.ID, stage stages.Stage) []Registration {
	i := flow.Index()
	if i < 0 || !stage.Valid() {
		return nil
	}
	return s.reg.load().byStage[i][stage]
}

// FlowHooksForOwner returns the external hooks of flow registered by owner
// (exactly that scope, not its children), in run order.
func (s *Scope) FlowHooksForOwner(flow flows.ID, owner *Scope) []Registration {
	i := flow.Index()
	if i < 0 {
		return nil
	}
	o := s.reg.load().byOwner[owner]
	if o == nil {
		return nil
	}
	return o[i]
}

// TypeHooks returns the embedded hooks of the Go type t (or of the type t
// points to), all flows, flow by flow (in the order of [flows.All]) and each
// flow in run order.
func (s *Scope) TypeHooks(t reflect.Type) []Registration {
	return s.reg.load().byType[baseType(t)]
}

// Provide adds a constructor to s's dig container. Entities and plugins of s
// and its children can depend on what it provides.
func (s *Scope) Provide(constructor any, opts ...dig.ProvideOption) error {
	return s.di.Provide(constructor, opts...)
}

// Invoke calls function with its arguments built by s's dig container.
func (s *Scope) Invoke(function any, opts ...dig.InvokeOption) error {
	return s.di.Invoke(function, opts...)
}

// Decorate adds a decorator to s's dig container.
func (s *Scope) Decorate(decorator any, opts ...dig.DecorateOption) error {
	return s.di.Decorate(decorator, opts...)
}

// ChildPath returns the path of the child named name, of the given kind,
// of the scope whose path is parent: "<parent>/<kind>:<name>", e.g.
// "shop/plugin:audit". Hook IDs start with it; hookgen computes them with
// it too.
func ChildPath(parent string, kind Kind, name string) string {
	return parent + "/" + kind.String() + ":" + name
}
