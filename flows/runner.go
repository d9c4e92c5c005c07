package flows

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hookflow/hookflow/stages"
)

// Runner executes flow runs. It holds no per-request state of its own: it
// recycles Contexts and reports to an optional observer. One Runner serves
// any number of concurrent runs.
type Runner struct {
	logger   *slog.Logger
	observer atomic.Pointer[Observer]
	pool     sync.Pool
}

// RunnerOptions configures a [Runner]. The zero value is ready to use.
type RunnerOptions struct {
	// Logger receives what the run contract says is "logged": errors of
	// finally hooks and refused requests. nil discards them.
	Logger *slog.Logger
	// Observer, when set, is told about every hook call and step. It runs on
	// the request path, so it must be fast and safe for concurrent use.
	Observer Observer
}

// Observer is told what a run does, for tracing and explanations. ev is
// valid only during the call.
type Observer func(ev *Event)

// SetObserver replaces the runner's observer (nil for none). Runs that
// start afterwards report to obs; runs under way keep the observer they
// started with. A framework Server sets it at Start, joining its own
// observer with its plugins'.
func (r *Runner) SetObserver(obs Observer) {
	if obs == nil {
		r.observer.Store(nil)
		return
	}
	r.observer.Store(&obs)
}

// Observer returns the runner's observer, or nil.
func (r *Runner) Observer() Observer {
	if p := r.observer.Load(); p != nil {
		return *p
	}
	return nil
}

// Event describes one hook call or step of a run.
type Event struct {
	Flow  ID
	Stage stages.Stage
	// Hook is the hook's ID, or "" for a step.
	Hook string
	// Step is "validate" or "execute" for a step, "" for a hook.
	Step string
	// Outcome is what happened: "ok", "skip", "abort", "respond", "panic",
	// "canceled", "refused" or "error" (a step or finally hook failed).
	Outcome string
	// Err is the error the hook or step returned, if any.
	Err error
	// Context is the run, for observers that keep per-run state (a
	// tracer reads its span from the run's state); like ev, it is valid
	// only during the call.
	Context *Context
}

// NewRunner returns a Runner configured by opts, which may be nil.
func NewRunner(opts *RunnerOptions) *Runner {
	r := &Runner{}
	if opts != nil {
		r.logger = opts.Logger
		r.SetObserver(opts.Observer)
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.pool.New = func() any { return new(Context) }
	return r
}

// Run describes one run for [Runner.Run]: the flow, what it resolved, the
// request and its input, the compiled hooks and the flow's own steps.
type Run struct {
	// Flow is the flow to run.
	Flow ID
	// Entity is the resolved tool, resource or prompt; nil for flows that
	// resolve none.
	Entity *Entity
	// Request describes the MCP request; nil means an empty one.
	Request *Request
	// Input is the raw input the first stage sees ([Context.Input]).
	Input any
	// Arguments is the raw JSON arguments, when the input has them
	// ([Context.Arguments]).
	Arguments json.RawMessage
	// Plan lists the hooks to call; nil runs none.
	Plan *Plan
	// Steps validates and executes; nil steps do nothing.
	Steps Steps
}

// Run executes one run: beforeValidation, Validate, afterValidation,
// beforeExecute, Execute, afterExecute; then onError if anything failed;
// then finally, exactly once, on every path (see the package doc for the
// whole contract). It returns the run's output and error: nil error on
// success, including a run an onError hook recovered. An error is an
// *[Error] naming the flow, stage, and hook or step, or an *Error a hook
// returned as it was.
//
// The hooks receive a *[Context] that the runner recycles once Run returns.
// In the steady state Run allocates nothing of its own.
func (r *Runner) Run(ctx context.Context, run Run) (output any, err error) {
	return r.run(ctx, &run, nil)
}

// run is Run; inspect, when non-nil, sees the Context after the run and
// before it is recycled (tests use it to read the whole outcome).
func (r *Runner) run(ctx context.Context, run *Run, inspect func(*Context)) (output any, err error) {
	c := r.pool.Get().(*Context)
	c.logger = r.logger
	if p := r.observer.Load(); p != nil {
		c.observer = *p
	}
	c.parent, c.done = ctx, ctx.Done()
	c.flow = run.Flow
	c.entity = run.Entity
	c.req = run.Request
	if c.req == nil {
		c.req = &emptyRequest
	}
	c.input = run.Input
	c.args = run.Arguments
	c.steps = run.Steps
	plan := run.Plan
	if plan == nil {
		plan = &emptyPlan
	}
	c.plan = plan
	if err := r.main(c, plan, run.Steps); err != nil {
		c.err = err
		r.onError(c, plan)
		if c.err == nil {
			// An onError hook recovered the run with an answer: it is
			// checked like any other.
			c.err = r.checkRecovered(c, run.Steps)
		}
	}
	c.stage = stages.Finally
	if hooks := plan.Stages[stages.Finally]; len(hooks) > 0 {
		r.finally(c, hooks)
	}
	output, err = c.output, c.err
	if f, ok := run.Steps.(Finisher); ok {
		output, err = r.finish(c, f, output, err)
	}
	if inspect != nil {
		inspect(c)
	}
	c.reset()
	r.pool.Put(c)
	return output, err
}

// runKey is the Go context key under which a run's Context travels.
type runKey struct{}

// FromContext returns the run that ctx belongs to: inside a flow's execute
// step (a tool's Execute, a resource's Read, a prompt's Get, a completer),
// the ctx it was given leads to the run's Context, which gives the request
// info ([Context.Request]). It returns nil outside a run. Like every
// Context, the result is valid only until the step returns.
func FromContext(ctx context.Context) *Context {
	c, _ := ctx.Value(runKey{}).(*Context)
	return c
}

// checkRecovered runs the output step on the answer of an onError hook
// that recovered the run, when the steps check outputs.
func (r *Runner) checkRecovered(c *Context, steps Steps) (err error) {
	oc, ok := steps.(OutputChecker)
	if !ok {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = r.panicked(c, v)
		}
	}()
	return r.checkOutput(c, oc)
}

// finish calls f.Finish for c's run. A panic in it fails the run with a
// *PanicError, as in any step.
func (r *Runner) finish(c *Context, f Finisher, output any, err error) (_ any, ferr error) {
	defer func() {
		if v := recover(); v != nil {
			ferr = r.panicked(c, v)
		}
	}()
	c.at, c.step = 0, stepFinish
	return f.Finish(c, output, err)
}

// main runs the four main stages and the two steps. One deferred recover
// covers all of them: a panic anywhere in them stops the flow, so there is
// nothing to resume, and a run pays for one defer instead of one per hook.
// c.at and c.step say which hook or step was running when it panicked.
func (r *Runner) main(c *Context, plan *Plan, steps Steps) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = r.panicked(c, v)
		}
	}()
	// Empty stages cost a check here, not a call.
	var responded bool
	c.stage = stages.BeforeValidation
	if hooks := plan.Stages[stages.BeforeValidation]; len(hooks) > 0 {
		if responded, err = r.stage(c, hooks); err != nil {
			return err
		}
	}
	if !responded {
		if err := r.validate(c, steps); err != nil {
			return err
		}
		c.stage = stages.AfterValidation
		if hooks := plan.Stages[stages.AfterValidation]; len(hooks) > 0 {
			if responded, err = r.stage(c, hooks); err != nil {
				return err
			}
		}
	}
	if !responded {
		c.stage = stages.BeforeExecute
		if hooks := plan.Stages[stages.BeforeExecute]; len(hooks) > 0 {
			if responded, err = r.stage(c, hooks); err != nil {
				return err
			}
		}
	}
	if !responded {
		if err := r.execute(c, steps); err != nil {
			return err
		}
	}
	c.stage = stages.AfterExecute
	if hooks := plan.Stages[stages.AfterExecute]; len(hooks) > 0 {
		if _, err = r.stage(c, hooks); err != nil {
			return err
		}
	}
	if oc, ok := steps.(OutputChecker); ok {
		return r.checkOutput(c, oc)
	}
	return nil
}

// stage runs hooks, the hooks of c's current stage, one of the four main
// stages. It reports whether a hook answered early, and the error that stops
// the flow. Panics are recovered by main.
func (r *Runner) stage(c *Context, hooks []PlanEntry) (responded bool, _ error) {
	for i := range hooks {
		h := &hooks[i]
		if c.done != nil && isDone(c.done) {
			return false, r.canceledBefore(c, h)
		}
		c.at = i + 1
		c.control = ctlNone
		var err error
		if h.guarded() {
			err = r.call(c, h)
		} else {
			err = h.Fn(c)
		}
		if err == nil && c.control == ctlNone {
			if c.observer != nil {
				r.emit(c, h.ID, "", "ok", nil)
			}
			continue
		}
		if stop, responded, err := r.handle(c, h, err); stop {
			return responded, err
		}
	}
	return false, nil
}

// handle applies what hook h of a main stage did besides returning nil:
// its error, or the control it asked for. It reports whether the stage
// stops, whether h answered early, and the error that stops the flow. It
// sits apart from stage's loop, which then stays small.
func (r *Runner) handle(c *Context, h *PlanEntry, err error) (stop, responded bool, _ error) {
	if err == nil && c.control == ctlAbort {
		err = c.abortErr
	}
	if err != nil {
		if ce := canceledDuring(c, h, err); ce != nil {
			r.observe(c, h.ID, "", "canceled", ce)
			return true, false, ce
		}
		if r.absorbed(c, h, err) {
			return false, false, nil
		}
		c.decided = h.ID
		r.observe(c, h.ID, "", failureOutcome(h, err, "abort"), err)
		return true, false, wrap(err, c, h.ID)
	}
	switch c.control {
	case ctlSkip:
		r.observe(c, h.ID, "", "skip", nil)
		return true, false, nil
	case ctlRespond:
		c.responded = true
		c.decided = h.ID
		r.observe(c, h.ID, "", "respond", nil)
		return true, true, nil
	}
	return false, false, nil
}

// isDone reports whether done is closed, without blocking.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// canceledBefore returns the error of a run whose request was cancelled
// before hook h ran, and reports it.
func (r *Runner) canceledBefore(c *Context, h *PlanEntry) error {
	err := &Error{Code: CodeCanceled, Flow: c.flow, Stage: c.stage, Msg: "request canceled before hook " + strconv.Quote(h.ID) + " ran", Err: context.Cause(c.parent)}
	r.observe(c, h.ID, "", "canceled", err)
	return err
}

// emptyPlan is the plan of a run given a nil *Plan.
var emptyPlan Plan

// panicked turns a panic recovered by main into the flow's error, naming the
// hook or step that panicked.
func (r *Runner) panicked(c *Context, v any) error {
	e := &Error{Code: CodePanic, Flow: c.flow, Stage: c.stage, Err: &PanicError{Value: v, Stack: debug.Stack()}}
	defer r.logPanic(c, e)
	if c.at > 0 {
		h := &c.plan.Stages[c.stage][c.at-1]
		e.Hook = h.ID
		c.decided = h.ID
		r.observe(c, h.ID, "", "panic", e)
		return e
	}
	e.Step = c.step.String()
	r.observe(c, "", e.Step, "panic", e)
	return e
}

// logPanic logs a recovered panic with its value and stack: clients read
// only "internal error" and the request ID (see [Error.Reason]).
func (r *Runner) logPanic(c *Context, e *Error) {
	attrs := []slog.Attr{slog.String("flow", string(c.flow)), slog.String("stage", c.stage.String()),
		slog.String("request", c.req.ID)}
	if e.Hook != "" {
		attrs = append(attrs, slog.String("hook", e.Hook))
	} else {
		attrs = append(attrs, slog.String("step", e.Step))
	}
	if p, ok := e.Err.(*PanicError); ok {
		attrs = append(attrs, slog.Any("panic", p.Value), slog.String("stack", string(p.Stack)))
	}
	r.logger.LogAttrs(c.parent, slog.LevelError, "hookflow: panic recovered", attrs...)
}

// canceledDuring returns the cancellation error of a hook that failed with
// its request's own context error (it gave up because the client went
// away): the run was cancelled, not blocked by that hook, so no hook decided
// it. It returns nil for any other error.
func canceledDuring(c *Context, h *PlanEntry, err error) error {
	if c.done == nil {
		return nil
	}
	select {
	case <-c.done:
	default:
		return nil
	}
	if cerr := c.parent.Err(); cerr == nil || !errors.Is(err, cerr) {
		return nil
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	if cause := context.Cause(c.parent); cause != c.parent.Err() {
		err = cause
	}
	return &Error{Code: CodeCanceled, Flow: c.flow, Stage: c.stage, Msg: "request canceled while hook " + strconv.Quote(h.ID) + " ran", Err: err}
}

// wrap attaches the flow, stage and hook to a hook's error, unless it is an
// *Error already (hookflow never re-wraps).
func wrap(err error, c *Context, hook string) error {
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	return &Error{Code: CodeAborted, Flow: c.flow, Stage: c.stage, Hook: hook, Err: err}
}

type stepKind uint8

const (
	stepValidate stepKind = iota
	stepExecute
	stepOutput
	stepFinish
)

func (k stepKind) String() string {
	switch k {
	case stepValidate:
		return "validate"
	case stepOutput:
		return "output"
	case stepFinish:
		return "finish"
	}
	return "execute"
}

// validate runs the flow's validate step: the typed input and canonical
// arguments it returns replace the raw ones. A failure becomes an *Error
// naming the step (see stepFailed). Panics are recovered by main.
func (r *Runner) validate(c *Context, steps Steps) error {
	c.at, c.step = 0, stepValidate
	if steps == nil {
		return nil
	}
	in, args, err := steps.Validate(c)
	if err != nil {
		return r.stepFailed(c, stepValidate, err)
	}
	c.input = in
	if args != nil {
		c.args = args
	}
	if c.observer != nil {
		r.emit(c, "", "validate", "ok", nil)
	}
	return nil
}

// execute runs the flow's execute step, whose result is the output.
func (r *Runner) execute(c *Context, steps Steps) error {
	c.at, c.step = 0, stepExecute
	if steps == nil {
		return nil
	}
	out, err := steps.Execute(c)
	if err != nil {
		return r.stepFailed(c, stepExecute, err)
	}
	c.output = out
	if c.observer != nil {
		r.emit(c, "", "execute", "ok", nil)
	}
	return nil
}

// checkOutput runs the output step of steps that check outputs.
func (r *Runner) checkOutput(c *Context, oc OutputChecker) error {
	c.at, c.step = 0, stepOutput
	if err := oc.CheckOutput(c); err != nil {
		return r.stepFailed(c, stepOutput, err)
	}
	if c.observer != nil {
		r.emit(c, "", "output", "ok", nil)
	}
	return nil
}

// stepFailed returns the run's error for the failure err of step k and
// reports it. A failure becomes an *Error naming the step
// (CodeInvalidInput for validate, CodeFailed for the others, CodeCanceled
// when the step gave up because the request was cancelled); an *Error the
// step returned is kept as it is.
func (r *Runner) stepFailed(c *Context, k stepKind, err error) error {
	err = r.stepError(c, k, err)
	r.observe(c, "", k.String(), "error", err)
	return err
}

// stepError wraps the error of a step as an *Error, unless it is one.
func (r *Runner) stepError(c *Context, k stepKind, err error) error {
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	code := CodeFailed
	if k == stepValidate {
		code = CodeInvalidInput
	}
	if cerr := c.parent.Err(); cerr != nil && errors.Is(err, cerr) {
		code = CodeCanceled
		if cause := context.Cause(c.parent); cause != cerr {
			err = cause // e.g. a timeout's own error, which Is the deadline
		}
	}
	return &Error{Code: code, Flow: c.flow, Stage: c.stage, Step: k.String(), Err: err}
}

// observe reports an event to the observer, if there is one.
func (r *Runner) observe(c *Context, hook, step, outcome string, err error) {
	if c.observer != nil {
		r.emit(c, hook, step, outcome, err)
	}
}

// emit reports an event through the Event of the Context's records, so
// that observing a recycled run allocates nothing.
func (r *Runner) emit(c *Context, hook, step, outcome string, err error) {
	ev := &c.records().ev
	*ev = Event{Flow: c.flow, Stage: c.stage, Hook: hook, Step: step, Outcome: outcome, Err: err, Context: c}
	c.observer(ev)
}
