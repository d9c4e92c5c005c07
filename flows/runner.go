package flows

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
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
	c.done = c.ctx.Done()
	if err := r.main(c, plan, steps); err != nil {
		c.err = err
		r.onError(c, plan)
	}
	r.finally(c, plan)
	return c.err
}

func (r *Runner) main(c *Context, plan *Plan, steps Steps) error {
	responded, err := r.stage(c, plan, stages.BeforeValidation)
	if err != nil {
		return err
	}
	if !responded {
		if err := r.step(c, steps, stepValidate); err != nil {
			return err
		}
		if responded, err = r.stage(c, plan, stages.AfterValidation); err != nil {
			return err
		}
	}
	if !responded {
		if responded, err = r.stage(c, plan, stages.BeforeExecute); err != nil {
			return err
		}
	}
	if !responded {
		if err := r.step(c, steps, stepExecute); err != nil {
			return err
		}
	}
	_, err = r.stage(c, plan, stages.AfterExecute)
	return err
}

// stage runs the hooks of one of the four main stages. It reports whether a
// hook answered early, and the error that stops the flow.
func (r *Runner) stage(c *Context, plan *Plan, s stages.Stage) (responded bool, _ error) {
	c.stage = s
	hooks := plan.Hooks(s)
	for i := range hooks {
		h := &hooks[i]
		if c.done != nil {
			select {
			case <-c.done:
				err := &Error{Code: CodeCanceled, Flow: c.flow, Stage: s, Hook: h.ID, Err: c.ctx.Err()}
				r.observe(c, h.ID, "", "canceled", err)
				return false, err
			default:
			}
		}
		c.control = ctlNone
		if err := r.call(c, h); err != nil {
			return false, err
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
		r.observe(c, h.ID, "", "ok", nil)
	}
	return false, nil
}

// call runs one hook and turns a returned error, an Abort or a panic into the
// flow's error.
func (r *Runner) call(c *Context, h *PlannedHook) error {
	err, panicked := invoke(c, h.Fn)
	if err == nil && c.control == ctlAbort {
		err = c.abortErr
	}
	if err == nil {
		return nil
	}
	c.decided = h.ID
	if panicked {
		err = &Error{Code: CodePanic, Flow: c.flow, Stage: c.stage, Hook: h.ID, Err: err}
		r.observe(c, h.ID, "", "panic", err)
		return err
	}
	r.observe(c, h.ID, "", "abort", err)
	return wrap(err, c, h.ID)
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

// invoke calls fn, turning a panic into a *PanicError.
func invoke(c *Context, fn HookFunc) (err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			err, panicked = &PanicError{Value: v, Stack: debug.Stack()}, true
		}
	}()
	return fn(c), false
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

func (r *Runner) step(c *Context, steps Steps, k stepKind) error {
	err, panicked := invokeStep(c, steps, k)
	if err == nil {
		r.observe(c, "", k.String(), "ok", nil)
		return nil
	}
	if panicked {
		err = &Error{Code: CodePanic, Flow: c.flow, Stage: c.stage, Step: k.String(), Err: err}
		r.observe(c, "", k.String(), "panic", err)
		return err
	}
	r.observe(c, "", k.String(), "error", err)
	return err
}

func invokeStep(c *Context, steps Steps, k stepKind) (err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			err, panicked = &PanicError{Value: v, Stack: debug.Stack()}, true
		}
	}()
	if steps == nil {
		return nil, false
	}
	if k == stepValidate {
		return steps.Validate(c), false
	}
	return steps.Execute(c), false
}

// onError runs the onError hooks with the flow's error in c.err. A hook's
// error replaces it; Respond recovers the flow; Skip ends the stage.
func (r *Runner) onError(c *Context, plan *Plan) {
	c.stage = stages.OnError
	hooks := plan.Hooks(stages.OnError)
	for i := range hooks {
		h := &hooks[i]
		c.control = ctlNone
		err, panicked := invoke(c, h.Fn)
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			c.decided = h.ID
			if panicked {
				c.err = &Error{Code: CodePanic, Flow: c.flow, Stage: stages.OnError, Hook: h.ID, Err: err}
				r.observe(c, h.ID, "", "panic", c.err)
			} else {
				c.err = wrap(err, c, h.ID)
				r.observe(c, h.ID, "", "abort", err)
			}
			continue
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return
		case ctlRespond:
			c.err = nil
			c.responded = true
			c.decided = h.ID
			r.observe(c, h.ID, "", "respond", nil)
			return
		}
		r.observe(c, h.ID, "", "ok", nil)
	}
}

// finally runs the finally hooks. Nothing they do changes the outcome: errors
// and panics are logged and recorded, Respond is refused.
func (r *Runner) finally(c *Context, plan *Plan) {
	c.stage = stages.Finally
	hooks := plan.Hooks(stages.Finally)
	for i := range hooks {
		h := &hooks[i]
		c.control = ctlNone
		out := c.output
		err, panicked := invoke(c, h.Fn)
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			code := CodeAborted
			if panicked {
				code = CodePanic
			}
			e := &Error{Code: code, Flow: c.flow, Stage: stages.Finally, Hook: h.ID, Err: err}
			c.finallyErr = append(c.finallyErr, e)
			r.logger.LogAttrs(c.ctx, slog.LevelError, "hookflow: finally hook failed",
				slog.String("flow", string(c.flow)), slog.String("hook", h.ID), slog.Any("error", err))
			r.observe(c, h.ID, "", "error", e)
			continue
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return
		case ctlRespond:
			c.output = out
			r.logger.LogAttrs(c.ctx, slog.LevelWarn, "hookflow: Respond refused in finally",
				slog.String("flow", string(c.flow)), slog.String("hook", h.ID))
			r.observe(c, h.ID, "", "refused", nil)
			continue
		}
		r.observe(c, h.ID, "", "ok", nil)
	}
}

func (r *Runner) observe(c *Context, hook, step, outcome string, err error) {
	if r.observer == nil {
		return
	}
	ev := Event{Flow: c.flow, Stage: c.stage, Hook: hook, Step: step, Outcome: outcome, Err: err}
	r.observer(&ev)
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
