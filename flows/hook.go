package flows

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HookFunc is the signature of every hook: it runs at one stage of one flow
// and gets the run's [Context]. Returning a non-nil error aborts the flow (see
// the run contract in the package doc).
type HookFunc func(c *Context) error

// Hook is one hook registration: where it runs (Flow, Stage), its place in
// the order (Priority), its name and its function. It is a plain value:
// write it as a literal with a [HookFunc], build it from a typed function
// with [On], or let hookgen generate it from a //hook: directive. A server,
// an app or a plugin registers it with its Hook method.
type Hook struct {
	// Flow and Stage say where the hook runs.
	Flow  ID
	Stage stages.Stage
	// Priority orders hooks within a stage: higher runs first; equal
	// priorities run in registration order. The default is 0; package
	// priority names the positions of the first-party plugins (write
	// priority.Auth + 10 to run just before auth) and bounds the range to
	// int32.
	Priority int
	// Name identifies the hook within its owner, flow and stage; it is the
	// last part of the hook's ID ([HookID]). When empty it is derived from
	// the function's name, which is stable for a given binary but
	// unreadable for closures: name your hooks.
	Name string
	// Fn is the hook itself.
	Fn HookFunc
	// Timeout bounds each call of the hook; 0 means no bound. A hook with
	// a Timeout runs on a goroutine of its own with a copy of the run's
	// Context whose Go context is cancelled when the time is up; the run
	// then goes on without it, by OnFailure, and the hook's late changes to
	// the Context are dropped. A hook that outlives its Timeout must stop
	// touching values it reached through the run (its input, its output)
	// once its context is done. Hooks without a Timeout cost nothing extra.
	Timeout time.Duration
	// OnFailure is what a failure of the hook does to the run: with
	// FailClosed (the default) the run contract applies; with FailOpen a
	// failure is logged and recorded ([Context.Failures]) and the run goes
	// on as if the hook had returned nil. A failure is an error the hook
	// returns, a panic, or its Timeout passing; a decision is not:
	// [Context.Abort] stops the run under either policy.
	OnFailure FailurePolicy

	// view is what a hook built by On expects of the run: its flow and, for
	// a tool call, the tool's input and output types.
	view viewSpec
}

// viewSpec is what a typed view requires of a run.
type viewSpec struct {
	kind ViewKind
	flow ID // "" for a List of a type that is no list result
	// in and out are ToolCall's type arguments; in is List's.
	in, out reflect.Type
}

// name returns the view's Go type, for messages.
func (v viewSpec) name() string {
	switch v.kind {
	case ViewToolCall:
		return fmt.Sprintf("flows.ToolCall[%v, %v]", v.in, v.out)
	case ViewList:
		return fmt.Sprintf("flows.List[%v]", v.in)
	}
	return "flows." + v.kind.String()
}

// On returns the registration of fn, a hook written against a typed view V,
// at stage of V's flow: [ToolCall] hooks run in tools:call-tool,
// List[*mcp.ListToolsResult] hooks in tools:list-tools, and so on. A V that
// is no flow's view (List of a type that is not a list result) makes the
// registration fail. A ToolCall[In, Out] hook runs only where In and Out are
// the tool's types: registering it where it covers a tool with other types
// is an error.
//
//	h := flows.On(stages.AfterExecute, func(c flows.List[*mcp.ListToolsResult]) error { … })
//	h.Name, h.Priority = "hide-admin", priority.Auth
func On[V View](stage stages.Stage, fn func(V) error) Hook {
	var v V
	spec := v.spec()
	h := Hook{Flow: spec.flow, Stage: stage, view: spec}
	if fn != nil {
		h.Fn = func(c *Context) error { return fn(V{Context: c}) }
	}
	return h
}

// View is the set of typed views a hook may take instead of *Context, one
// per [ViewKind] (the View column of the flow table in docs/flows.md). Each
// names its flow: its spec is generated from the flow table.
type View interface {
	~struct{ *Context }
	spec() viewSpec
}

// As returns the typed view V of c, for a hook registered with a plain
// [HookFunc] that wants a view's accessors. It panics when V is not the
// view of c's flow (the runner reports the panic as the hook's failure),
// so a wrong type parameter never reads as a silent nil; hooks built with
// [On] are checked at registration instead.
func As[V View](c *Context) V {
	var v V
	if spec := v.spec(); spec.flow != c.flow {
		panic(fmt.Sprintf("flows.As: %s is the view of %s, not of %s", spec.name(), flowName(spec.flow), c.flow))
	}
	return V{Context: c}
}

// Typed reports whether h was built by [On] from a typed view.
func (h Hook) Typed() bool { return h.view.kind != ViewContext }

// Check reports whether h can run for the entity e: a hook built by [On]
// with ToolCall[In, Out] needs a tool whose input and output types are In
// and Out. Every other hook fits every entity of its flow.
func (h Hook) Check(e *Entity) error {
	if h.view.kind != ViewToolCall || e == nil || e.In == nil {
		return nil
	}
	if h.view.in != e.In || h.view.out != e.Out {
		return &Error{Code: CodeInvalid, Flow: h.Flow, Stage: h.Stage,
			Msg: fmt.Sprintf("hook %q takes %s, but %s %q has input %v and output %v", h.Name, h.view.name(), e.Kind, e.Name, e.In, e.Out)}
	}
	return nil
}

// Validate checks a registration on its own: a known flow and stage, a
// function, and a typed view that belongs to the flow. Registries call it;
// its errors are *Error with CodeInvalid.
func (h Hook) Validate() error {
	name := h.Name
	if name == "" {
		name = "(unnamed)"
	}
	fail := func(format string, args ...any) error {
		return &Error{Code: CodeInvalid, Flow: h.Flow, Msg: fmt.Sprintf("hook %q: ", name) + fmt.Sprintf(format, args...)}
	}
	if h.view.kind != ViewContext && h.view.flow == "" {
		return fail("%s is not the view of any flow", h.view.name())
	}
	if !h.Flow.Valid() {
		_, err := Parse(string(h.Flow))
		return fail("%v", err)
	}
	if h.view.kind != ViewContext && h.view.flow != h.Flow {
		return fail("it takes %s, the view of %s, but is registered for %s", h.view.name(), h.view.flow, h.Flow)
	}
	if !h.Stage.Valid() {
		return fail("invalid stage %d", uint8(h.Stage))
	}
	if h.Fn == nil {
		return fail("nil hook function")
	}
	if err := priority.Check(h.Priority); err != nil {
		return fail("%v", err)
	}
	if h.Timeout < 0 {
		return fail("negative timeout %v", h.Timeout)
	}
	if !h.OnFailure.Valid() {
		return fail("invalid failure policy %d", uint8(h.OnFailure))
	}
	return nil
}

func flowName(id ID) string {
	if id == "" {
		return "no flow"
	}
	return string(id)
}

// resultFlow returns the flow of the view kind whose result type is t,
// *mcp.<Info.Result> (e.g. a List of *mcp.ListToolsResult →
// tools:list-tools), or "" when there is none.
func resultFlow(kind ViewKind, t reflect.Type) ID {
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != mcpPath {
		return ""
	}
	name := t.Elem().Name()
	for _, f := range table {
		if f.View == kind && f.Result == name {
			return f.ID
		}
	}
	return ""
}

// mcpPath is the import path of the MCP SDK's mcp package, whose types the
// flow table's Result fields name.
var mcpPath = reflect.TypeFor[mcp.Tool]().PkgPath()

// HookID returns the ID of the hook named name that owner registers at
// stage of flow: "<owner>/<flow>/<stage>/<name>". The owner is the
// registering scope's path for external hooks (e.g.
// "server/plugin:audit") and the entity's Go type for embedded hooks (e.g.
// "example.com/weather.GetWeather"). hookflow and hookgen compute every
// hook ID with it.
func HookID(owner string, flow ID, stage stages.Stage, name string) string {
	var b strings.Builder
	b.Grow(len(owner) + len(flow) + len(name) + 20)
	b.WriteString(owner)
	b.WriteByte('/')
	b.WriteString(string(flow))
	b.WriteByte('/')
	b.WriteString(stage.String())
	b.WriteByte('/')
	b.WriteString(name)
	return b.String()
}

// Named returns h with its Name set to name.
func (h Hook) Named(name string) Hook {
	h.Name = name
	return h
}

// At returns h with its Priority set to priority.
func (h Hook) At(priority int) Hook {
	h.Priority = priority
	return h
}

// Within returns h with its Timeout set to d.
func (h Hook) Within(d time.Duration) Hook {
	h.Timeout = d
	return h
}

// Failing returns h with its OnFailure policy set to p.
//
//	h := flows.On(stages.BeforeExecute, checkQuota).Named("quota").Within(250 * time.Millisecond).Failing(flows.FailOpen)
func (h Hook) Failing(p FailurePolicy) Hook {
	h.OnFailure = p
	return h
}
