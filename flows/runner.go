package flows

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/hookflow/hookflow/stages"
)

// Runner executes flow runs. It holds no per-request state of its own: it
// recycles Contexts and reports to an optional observer. One Runner serves
// any number of concurrent runs.
type Runner struct {
	logger   *slog.Logger
	observer Observer
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
}

// NewRunner returns a Runner configured by opts, which may be nil.
func NewRunner(opts *RunnerOptions) *Runner {
	r := &Runner{}
	if opts != nil {
		r.logger = opts.Logger
		r.observer = opts.Observer
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.pool.New = func() any { return new(Context) }
	return r
}

// Acquire returns a fresh Context for one run. Call [Context.Init] on it, run
// it with [Runner.Run], read its outcome, then give it back with
// [Runner.Release]. Acquire does not allocate in the steady state.
func (r *Runner) Acquire() *Context {
	c := r.pool.Get().(*Context)
	c.logger = r.logger
	return c
}

// Release returns c to the runner for reuse. c must not be used afterwards.
func (r *Runner) Release(c *Context) {
	c.reset()
	r.pool.Put(c)
}

// Run executes one run of c's flow with the hooks of plan and the flow's own
// steps, and returns the run's error (nil on success, including a run
// recovered in onError). The outcome stays readable on c: [Context.Output],
// [Context.Err], [Context.DecidedBy].
//
// The order is: beforeValidation, Validate, afterValidation, beforeExecute,
// Execute, afterExecute; then onError if anything failed; then finally,
// exactly once, on every path. See the package doc for the full contract.
func (r *Runner) Run(c *Context, plan *Plan, steps Steps) error {
	if plan == nil {
		plan = &emptyPlan
	}
	c.done = c.ctx.Done()
	if err := r.main(c, plan, steps); err != nil {
		c.err = err
		r.onError(c, plan)
	}
	r.finally(c, plan)
	return c.err
}

// main runs the four main stages and the two steps. One deferred recover
// covers all of them: a panic anywhere in them stops the flow, so there is
// nothing to resume, and a run pays for one defer instead of one per hook.
// c.hook and c.step say which hook or step was running when it panicked.
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
		if err := r.step(c, steps, stepValidate); err != nil {
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
		if err := r.step(c, steps, stepExecute); err != nil {
			return err
		}
	}
	c.stage = stages.AfterExecute
	if hooks := plan.Stages[stages.AfterExecute]; len(hooks) > 0 {
		_, err = r.stage(c, hooks)
	}
	return err
}

// stage runs hooks, the hooks of c's current stage, one of the four main
// stages. It reports whether a hook answered early, and the error that stops
// the flow. Panics are recovered by main.
func (r *Runner) stage(c *Context, hooks []PlannedHook) (responded bool, _ error) {
	for i := range hooks {
		h := &hooks[i]
		if c.done != nil {
			select {
			case <-c.done:
				err := &Error{Code: CodeCanceled, Flow: c.flow, Stage: c.stage, Msg: "request canceled before hook " + strconv.Quote(h.ID) + " ran", Err: c.ctx.Err()}
				r.observe(c, h.ID, "", "canceled", err)
				return false, err
			default:
			}
		}
		c.hook = h
		c.control = ctlNone
		err := h.Fn(c)
		if err == nil && c.control == ctlNone {
			if r.observer != nil {
				r.emit(c, h.ID, "", "ok", nil)
			}
			continue
		}
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			if ce := canceledDuring(c, h, err); ce != nil {
				r.observe(c, h.ID, "", "canceled", ce)
				return false, ce
			}
			c.decided = h.ID
			r.observe(c, h.ID, "", "abort", err)
			return false, wrap(err, c, h.ID)
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return false, nil
		case ctlRespond:
			c.responded = true
			c.decided = h.ID
			r.observe(c, h.ID, "", "respond", nil)
			return true, nil
		}
	}
	return false, nil
}

// emptyPlan is the plan of a run given a nil *Plan.
var emptyPlan Plan

// panicked turns a panic recovered by main into the flow's error, naming the
// hook or step that panicked.
func (r *Runner) panicked(c *Context, v any) error {
	e := &Error{Code: CodePanic, Flow: c.flow, Stage: c.stage, Err: &PanicError{Value: v, Stack: debug.Stack()}}
	if h := c.hook; h != nil {
		e.Hook = h.ID
		c.decided = h.ID
		r.observe(c, h.ID, "", "panic", e)
		return e
	}
	e.Step = c.step.String()
	r.observe(c, "", e.Step, "panic", e)
	return e
}

// canceledDuring returns the cancellation error of a hook that failed with
// its request's own context error (it gave up because the client went
// away): the run was cancelled, not blocked by that hook, so no hook decided
// it. It returns nil for any other error.
func canceledDuring(c *Context, h *PlannedHook, err error) error {
	if c.done == nil {
		return nil
	}
	select {
	case <-c.done:
	default:
		return nil
	}
	if cerr := c.ctx.Err(); cerr == nil || !errors.Is(err, cerr) {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: CodeCanceled, Flow: c.flow, Stage: c.stage, Msg: "request canceled while hook " + strconv.Quote(h.ID) + " ran", Err: err}
}

// wrap attaches the flow, stage and hook to a hook's error, unless it is an
// *Error already (hookflow never re-wraps).
func wrap(err error, c *Context, hook string) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: CodeAborted, Flow: c.flow, Stage: c.stage, Hook: hook, Err: err}
}

type stepKind uint8

const (
	stepValidate stepKind = iota
	stepExecute
)

func (k stepKind) String() string {
	if k == stepValidate {
		return "validate"
	}
	return "execute"
}

// step runs the flow's validate or execute step. Panics are recovered by main.
func (r *Runner) step(c *Context, steps Steps, k stepKind) error {
	c.hook, c.step = nil, k
	var err error
	if steps != nil {
		if k == stepValidate {
			err = steps.Validate(c)
		} else {
			err = steps.Execute(c)
		}
	}
	if err != nil {
		r.observe(c, "", k.String(), "error", err)
		return err
	}
	if r.observer != nil {
		r.emit(c, "", k.String(), "ok", nil)
	}
	return nil
}

// onError runs the onError hooks with the flow's error in c.err. A hook's
// error replaces it; Respond recovers the flow; Skip ends the stage. A hook's
// panic replaces the error too, and the next hook runs.
func (r *Runner) onError(c *Context, plan *Plan) {
	c.stage = stages.OnError
	hooks := plan.Stages[stages.OnError]
	for i := 0; i < len(hooks); {
		i = r.onErrorFrom(c, hooks, i)
	}
}

// onErrorFrom runs hooks[i:] and returns where to go on: len(hooks) when the
// stage is over, the index after a hook that panicked.
func (r *Runner) onErrorFrom(c *Context, hooks []PlannedHook, i int) (next int) {
	defer func() {
		if v := recover(); v != nil {
			h := &hooks[i]
			c.decided = h.ID
			c.err = &Error{Code: CodePanic, Flow: c.flow, Stage: stages.OnError, Hook: h.ID, Err: &PanicError{Value: v, Stack: debug.Stack()}}
			r.observe(c, h.ID, "", "panic", c.err)
			next = i + 1
		}
	}()
	for ; i < len(hooks); i++ {
		h := &hooks[i]
		c.control = ctlNone
		err := h.Fn(c)
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			c.decided = h.ID
			c.err = wrap(err, c, h.ID)
			r.observe(c, h.ID, "", "abort", err)
			continue
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return len(hooks)
		case ctlRespond:
			c.err = nil
			c.responded = true
			c.decided = h.ID
			r.observe(c, h.ID, "", "respond", nil)
			return len(hooks)
		}
		r.observe(c, h.ID, "", "ok", nil)
	}
	return len(hooks)
}

// finally runs the finally hooks. Nothing they do changes the outcome: errors
// and panics are logged and recorded, Respond is refused, and the output is
// put back after every hook.
func (r *Runner) finally(c *Context, plan *Plan) {
	c.stage = stages.Finally
	hooks := plan.Stages[stages.Finally]
	if len(hooks) == 0 {
		return
	}
	out := c.output
	for i := 0; i < len(hooks); {
		i = r.finallyFrom(c, hooks, i, out)
	}
}

// finallyFrom runs hooks[i:] and returns where to go on, as onErrorFrom.
func (r *Runner) finallyFrom(c *Context, hooks []PlannedHook, i int, out any) (next int) {
	defer func() {
		if v := recover(); v != nil {
			c.output = out
			r.finallyFailed(c, &hooks[i], CodePanic, &PanicError{Value: v, Stack: debug.Stack()})
			next = i + 1
		}
	}()
	for ; i < len(hooks); i++ {
		h := &hooks[i]
		c.control = ctlNone
		err := h.Fn(c)
		c.output = out
		if err == nil && c.control == ctlNone {
			if r.observer != nil {
				r.emit(c, h.ID, "", "ok", nil)
			}
			continue
		}
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			r.finallyFailed(c, h, CodeAborted, err)
			continue
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return len(hooks)
		case ctlRespond:
			r.logger.LogAttrs(c.ctx, slog.LevelWarn, "hookflow: Respond refused in finally",
				slog.String("flow", string(c.flow)), slog.String("hook", h.ID))
			r.observe(c, h.ID, "", "refused", nil)
		}
	}
	return len(hooks)
}

// finallyFailed records and logs the error or panic of a finally hook.
func (r *Runner) finallyFailed(c *Context, h *PlannedHook, code Code, err error) {
	e := &Error{Code: code, Flow: c.flow, Stage: stages.Finally, Hook: h.ID, Err: err}
	c.finallyErr = append(c.finallyErr, e)
	r.logger.LogAttrs(c.ctx, slog.LevelError, "hookflow: finally hook failed",
		slog.String("flow", string(c.flow)), slog.String("hook", h.ID), slog.Any("error", err))
	r.observe(c, h.ID, "", "error", e)
}

// observe reports an event to the observer, if there is one.
func (r *Runner) observe(c *Context, hook, step, outcome string, err error) {
	if r.observer != nil {
		r.emit(c, hook, step, outcome, err)
	}
}

// emit reports an event through the Context's own Event, so that observing
// a run allocates nothing.
func (r *Runner) emit(c *Context, hook, step, outcome string, err error) {
	c.ev = Event{Flow: c.flow, Stage: c.stage, Hook: hook, Step: step, Outcome: outcome, Err: err}
	r.observer(&c.ev)
}

// RunFunc is a convenience for tests and examples: it runs flow once with
// plan and steps on a fresh Context and returns the output and error.
func (r *Runner) RunFunc(ctx context.Context, flow ID, plan *Plan, steps Steps, input any) (any, error) {
	c := r.Acquire()
	defer r.Release(c)
	c.Init(ctx, flow, nil, nil, input)
	err := r.Run(c, plan, steps)
	return c.Output(), err
}
