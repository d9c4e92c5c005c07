package flows

import (
	"reflect"

	"github.com/hookflow/hookflow/stages"
)

// HookFunc is the signature of every hook: it runs at one stage of one flow
// and gets the run's [Context]. Returning a non-nil error aborts the flow (see
// the run contract in the package doc).
type HookFunc func(c *Context) error

// PlannedHook is one hook as the runner calls it: its ID (reported when it
// aborts, answers early or panics), its priority, and its function.
type PlannedHook struct {
	ID       string
	Priority int
	Fn       HookFunc
}

// Plan is the compiled hook list of one flow for one entity: for every stage,
// the hooks that apply, already in run order (descending priority, ties in
// registration order). A Plan is immutable once built and is shared by
// concurrent runs; the runner never sorts or filters it.
type Plan struct {
	Flow   ID
	Stages [stages.Count][]PlannedHook
}

// Hooks returns the hooks of stage s in run order. The slice must not be
// modified.
func (p *Plan) Hooks(s stages.Stage) []PlannedHook {
	if p == nil || !s.Valid() {
		return nil
	}
	return p.Stages[s]
}

// Len returns the number of hooks in the plan, all stages together.
func (p *Plan) Len() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, hs := range p.Stages {
		n += len(hs)
	}
	return n
}

// Steps is a flow's own work between its stages. Validate turns the raw input
// into typed input (and may reject it); Execute produces the output. Both get
// the run's Context and report through it ([Context.SetInput],
// [Context.SetOutput]). A Steps value is long-lived and shared by concurrent
// runs, so that a run allocates nothing for it.
type Steps interface {
	Validate(c *Context) error
	Execute(c *Context) error
}

// Entity is what a flow resolved before its first stage: a tool, resource,
// resource template or prompt. Type is the Go type that declares the entity
// (the key of its embedded hooks); Value is the instance the framework calls.
type Entity struct {
	Kind  EntityKind
	Name  string
	Type  reflect.Type
	Value any
}
