package flows

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/stages"
)

// PlanEntry is one hook as the runner calls it: its ID (reported when it
// aborts, answers early or panics), its priority, its function, and the
// bound and failure policy of its calls ([Hook.Timeout], [Hook.OnFailure]).
type PlanEntry struct {
	ID        string
	Priority  int
	Fn        HookFunc
	Timeout   time.Duration
	OnFailure FailurePolicy
	// Check is the error of a typed hook that does not fit the plan's
	// entity ([Hook.Check]); its Fn then fails the run with it.
	Check error
}

// Plan is the compiled hook list of one flow for one entity: for every stage,
// the hooks that apply, already in run order (descending priority, ties in
// registration order). A Plan is immutable once built and is shared by
// concurrent runs; the runner never sorts or filters it.
type Plan struct {
	Flow   ID
	Stages [stages.Count][]PlanEntry
}

// Hooks returns the hooks of stage s in run order. The slice must not be
// modified.
func (p *Plan) Hooks(s stages.Stage) []PlanEntry {
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

// Steps is a flow's own work between its stages. A Steps value is
// long-lived and shared by concurrent runs, so that a run allocates nothing
// for it.
//
// Validate turns the raw input ([Context.Input]) into the typed input that
// afterValidation sees, or rejects it. When the input is JSON arguments it
// also returns their canonical form for [Context.Arguments] (nil keeps the
// raw arguments).
//
// Execute produces the flow's output from the (typed) input.
//
// An error from either is wrapped in an *[Error] naming the step, unless it
// is one already.
type Steps interface {
	Validate(c *Context) (input any, args json.RawMessage, err error)
	Execute(c *Context) (output any, err error)
}

// OutputChecker is implemented by Steps whose flow checks its final output,
// whether execute produced it or a hook answered early: CheckOutput runs
// after afterExecute (the "output" step), may replace the output with
// [Context.SetOutput], and fails the run (onError and finally then see the
// failure) when the output cannot be sent. [Context.DecidedBy] names the
// hook that answered, if one did.
type OutputChecker interface {
	CheckOutput(c *Context) error
}

// Finisher is implemented by Steps that shape what a run returns from what
// its hooks left in the run's state. Finish runs once per run, on every
// path, after finally and before the Context is recycled; it gets the
// run's output and error and returns those [Runner.Run] returns. The
// tools:call-tool steps use it to turn a failure into an isError result and
// to append the text hooks added for the model.
type Finisher interface {
	Finish(c *Context, output any, err error) (any, error)
}

// Entity is what a flow resolved before its first stage: a tool, resource,
// resource template or prompt.
type Entity struct {
	Kind EntityKind
	// Name is the tool's or prompt's name, or the resource's URI (template).
	Name string
	// Type is the Go type that declares the entity (the key of its embedded
	// hooks); nil for entities added as plain functions.
	Type reflect.Type
	// Value is the instance the framework calls.
	Value any
	// In and Out are a tool's input and output types; nil for other kinds.
	In, Out reflect.Type
	// Tool, Prompt, Resource and Template describe the entity as clients
	// see it: the one that matches Kind is set (Resource or Template for
	// EntityResource).
	Tool     *mcp.Tool
	Prompt   *mcp.Prompt
	Resource *mcp.Resource
	Template *mcp.ResourceTemplate
	// Scopes are the OAuth scopes a caller needs to call a tool.
	Scopes []string
}
