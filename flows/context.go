package flows

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/hookflow/hookflow/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Context is one run of one flow, as hooks see it. A Context is valid only
// while its run is in progress: hooks must not keep it, and the runner reuses
// it afterwards. A run's hooks execute one at a time, so a Context is never
// used by two goroutines at once; a hook that starts goroutines must not let
// them touch the Context after it returns.
type Context struct {
	// parent is the request's Go context; ctx is parent carrying the run
	// (for FromContext), made on the first call of Context(). origin is
	// the context the run started with, kept by the first SetContext
	// (until then it is parent).
	parent context.Context
	origin context.Context
	ctx    context.Context
	done   <-chan struct{}
	flow   ID
	stage  stages.Stage
	entity *Entity
	input  any
	output any
	err    error
	req    *Request
	args   json.RawMessage
	logger *slog.Logger
	// steps are the run's own steps, for Revalidate.
	steps Steps

	state []stateEntry

	// control is what the running hook asked for; decided is the ID of the
	// hook that aborted, answered early or recovered the run.
	control   control
	abortErr  error
	responded bool
	decided   string

	// plan, at and step say what is running, for the runner's panic
	// recovery: hook plan.Stages[stage][at-1], or step when at is 0.
	plan     *Plan
	at       int
	step     stepKind
	observer Observer

	// rec holds what a run records only when something writes it; it
	// survives reset, so that a recycled Context reuses it.
	rec *records
}

// records is what a run records only when something writes it: the
// errors of finally hooks, the failures of fail-open hooks, decisions,
// and the event the runner reports to its observer. A Context makes them
// on first use and keeps them across runs; one that never needed them
// pays a nil check per run.
type records struct {
	finallyErr []error
	failures   []error
	// decisions are what hooks recorded with Decide (at most
	// MaxDecisions); droppedDecisions counts the ones past the bound.
	decisions        []Decision
	droppedDecisions int
	ev               Event
}

// records returns c's records, making them on first use.
func (c *Context) records() *records {
	if c.rec == nil {
		c.rec = new(records)
	}
	return c.rec
}

// reset empties x for the next run, keeping its slices' room.
func (x *records) reset() {
	fe, fo, ds := x.finallyErr, x.failures, x.decisions
	clear(fe)
	clear(fo)
	clear(ds)
	*x = records{finallyErr: fe[:0], failures: fo[:0], decisions: ds[:0]}
}

type control uint8

const (
	ctlNone control = iota
	ctlSkip
	ctlAbort
	ctlRespond
)

// Context returns the request's Go context, which also leads back to the
// run ([FromContext]). It is cancelled when the client cancels the request
// or the connection closes.
func (c *Context) Context() context.Context {
	if c.ctx == nil {
		c.ctx = context.WithValue(c.parent, runKey{}, c)
	}
	return c.ctx
}

// SetContext makes ctx the Go context that the run's hooks and steps see
// from now on ([Context.Context]). ctx must be derived from the current
// one, so that the request's cancellation still reaches the run; a tracer
// uses it to run the rest of the flow, the tool's execute step and the calls
// it makes, inside the run's span. It has no effect in a hook with a
// [Hook.Timeout], whose context ends when it returns.
func (c *Context) SetContext(ctx context.Context) {
	if c.origin == nil {
		c.origin = c.parent
	}
	c.parent, c.done = ctx, ctx.Done()
	c.ctx = nil
	if ctx.Value(runKey{}) == c {
		c.ctx = ctx
	}
}

// Parent returns the run whose step sent the message this run is about:
// for a request or notification the server sends its client from inside
// a tool call (sampling, elicitation, progress…), the tool call's run,
// which gives the entity and request that caused it. It returns nil when
// the message was sent outside any run, and for the client's messages.
func (c *Context) Parent() *Context { return FromContext(c.originContext()) }

// originContext returns the context the run started with.
func (c *Context) originContext() context.Context {
	if c.origin != nil {
		return c.origin
	}
	return c.parent
}

// Flow returns the flow this run belongs to.
func (c *Context) Flow() ID { return c.flow }

// Steps returns the run's own steps (validate and execute), nil for a run
// without. Hooks never call them on their run; a hook that continues the
// request elsewhere (plugins/middleware's ContinueAsync) passes them to a
// run of its own with [Runner.Run]. Steps values are long-lived and safe for
// concurrent use.
func (c *Context) Steps() Steps { return c.steps }

// Stage returns the stage whose hooks are running.
func (c *Context) Stage() stages.Stage { return c.stage }

// Entity returns the resolved tool, resource or prompt, or nil for flows that
// resolve none (list flows, initialize).
func (c *Context) Entity() *Entity { return c.entity }

// Input returns the flow's input. Before validation it is the raw request
// input (for tools/call the raw JSON arguments); from afterValidation on it
// is the validated, typed input. The per-flow typed contexts document the
// concrete types.
func (c *Context) Input() any { return c.input }

// SetInput replaces the input. In beforeValidation a hook may rewrite the raw
// input, which is then validated; later, the typed input.
func (c *Context) SetInput(v any) { c.input = v }

// Output returns the flow's output so far: nil before execute (unless a hook
// answered early), the result after it.
func (c *Context) Output() any { return c.output }

// SetOutput replaces the output without changing the flow's control. Steps
// use it to record their result; afterExecute hooks use it to rewrite it.
// In finally it has no lasting effect: finally cannot change the outcome.
func (c *Context) SetOutput(v any) { c.output = v }

// Arguments returns the request's arguments as JSON: for tools/call, the
// raw arguments before validation and, from afterValidation on, the
// validated arguments with schema defaults applied, in canonical form
// (compact, object keys sorted), so that hooks can key on them without
// encoding the typed input again. A hook that changes the typed input does
// not change them. nil for flows whose input is not JSON arguments.
func (c *Context) Arguments() json.RawMessage { return c.args }

// Err returns the flow's error: nil while all is well, the failure in onError,
// and the final outcome in finally.
func (c *Context) Err() error { return c.err }

// Request returns what is known about the MCP request. It is never nil.
func (c *Context) Request() *Request { return c.req }

// Session returns the MCP session, or nil when the run has none.
func (c *Context) Session() *mcp.ServerSession { return c.req.Session }

// Logger returns the server's logger. It is never nil.
func (c *Context) Logger() *slog.Logger { return c.logger }

// Skip ends the current stage: the remaining hooks of this stage do not run
// and the flow goes on with its next step.
func (c *Context) Skip() { c.control = ctlSkip }

// Abort stops the flow with err (ErrAborted when err is nil), exactly as if
// the hook had returned err. It returns the error the flow will fail with, so
// a hook can write `return c.Abort(err)`.
func (c *Context) Abort(err error) error {
	if err == nil {
		err = ErrAborted
	}
	c.control = ctlAbort
	c.abortErr = err
	return err
}

// Respond answers the request with out. Before execute it skips everything
// up to and including execute, and afterExecute runs with out; in afterExecute
// it replaces the output and ends the stage; in onError it recovers the flow,
// which then succeeds with out. In finally it is refused and logged.
func (c *Context) Respond(out any) {
	c.control = ctlRespond
	c.output = out
}

// Responded reports whether a hook answered early or recovered the run.
func (c *Context) Responded() bool { return c.responded }

// DecidedBy returns the ID of the hook that aborted the run, answered it early
// or recovered it in onError; "" when no hook did.
func (c *Context) DecidedBy() string { return c.decided }

// FinallyErrors returns the errors that finally hooks returned or panicked
// with. They are logged and do not change the outcome.
func (c *Context) FinallyErrors() []error {
	if c.rec == nil || len(c.rec.finallyErr) == 0 {
		return nil
	}
	return c.rec.finallyErr
}

// Failures returns the failures of the run's fail-open hooks
// ([FailOpen]), in the order they happened: each an *Error naming the hook,
// with CodeAborted for an error it returned, CodePanic or CodeTimeout. They
// never change the run's outcome; finally hooks (an audit trail) read them
// here.
func (c *Context) Failures() []error {
	if c.rec == nil || len(c.rec.failures) == 0 {
		return nil
	}
	return c.rec.failures
}

// emptyRequest is the shared, read-only Request of runs that have none.
var emptyRequest Request

// reset empties c for the next run. The run's state and records keep
// their room.
func (c *Context) reset() {
	st, rec := c.state, c.rec
	clear(st[:cap(st)]) // up to cap: Key.Delete leaves a stale copy past len
	if rec != nil {
		rec.reset()
	}
	*c = Context{state: st[:0], rec: rec}
}
