package flows

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"slices"

	"github.com/hookflow/hookflow/stages"
)

// guarded reports whether h has a Timeout or a fail-open policy. The
// runner calls the other hooks directly, h.Fn(c), and their panics unwind
// to the stage's recover.
func (h *PlanEntry) guarded() bool { return h.Timeout != 0 || h.OnFailure != FailClosed }

// call runs the guarded hook h of c's current stage and returns its error.
// A fail-open hook's panic comes back as a CodePanic *Error, so that its
// policy applies; a hook with a Timeout runs on a goroutine of its own
// (callTimed).
func (r *Runner) call(c *Context, h *PlanEntry) error {
	if h.Timeout > 0 {
		return r.callTimed(c, h)
	}
	return r.callRecovering(c, h)
}

// callRecovering calls h, turning its panic into its error.
func (r *Runner) callRecovering(c *Context, h *PlanEntry) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = r.hookPanic(c, h, v, debug.Stack())
		}
	}()
	return h.Fn(c)
}

// hookPanic returns the CodePanic *Error of hook h's panic v, and logs it.
func (r *Runner) hookPanic(c *Context, h *PlanEntry, v any, stack []byte) *Error {
	e := &Error{Code: CodePanic, Flow: c.flow, Stage: c.stage, Hook: h.ID, Err: &PanicError{Value: v, Stack: stack}}
	r.logPanic(c, e)
	return e
}

// callTimed calls h on a goroutine of its own with a copy of c, whose Go
// context is cancelled after h.Timeout. When h returns in time, what it
// changed in the copy (input, output, state, control, decisions) is taken back into c;
// when the time is up first, the run goes on without it and the copy stays
// with the abandoned call, so the run's Context is never touched by two
// goroutines. It returns the hook's error, a CodePanic *Error for its panic,
// a CodeTimeout *Error when the time is up, or the request's own context
// error when the request was cancelled first.
//
// In onError and finally, which run after a cancellation too, the hook's
// context is bounded by its Timeout only.
func (r *Runner) callTimed(c *Context, h *PlanEntry) error {
	base := c.parent
	if c.stage == stages.OnError || c.stage == stages.Finally {
		base = context.WithoutCancel(base)
	}
	timedOut := &HookTimeoutError{Hook: h.ID, After: h.Timeout}
	ctx, cancel := context.WithTimeoutCause(base, h.Timeout, timedOut)
	defer cancel()

	tc := new(Context)
	*tc = *c
	tc.origin = c.originContext()
	tc.parent, tc.ctx, tc.done = ctx, nil, ctx.Done()
	tc.state = slices.Clone(c.state)
	tc.rec = nil // the copy reads no finally errors or failures
	if rec := c.rec; rec != nil && (len(rec.decisions) > 0 || rec.droppedDecisions > 0) {
		tc.rec = &records{decisions: slices.Clone(rec.decisions), droppedDecisions: rec.droppedDecisions}
	}

	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- r.hookPanic(tc, h, v, debug.Stack())
			}
		}()
		done <- h.Fn(tc)
	}()
	select {
	case err := <-done:
		c.input, c.output, c.state, c.control, c.abortErr = tc.input, tc.output, tc.state, tc.control, tc.abortErr
		if tc.rec != nil { // the hook decided, or the run had decided before
			rec := c.records()
			rec.decisions, rec.droppedDecisions = tc.rec.decisions, tc.rec.droppedDecisions
		}
		if err != nil && context.Cause(ctx) == error(timedOut) && errors.Is(err, context.DeadlineExceeded) {
			// The hook gave up on its own deadline before the runner saw it.
			return r.timedOut(c, h, timedOut)
		}
		return err
	case <-ctx.Done():
		if context.Cause(ctx) == error(timedOut) {
			return r.timedOut(c, h, timedOut)
		}
		return c.parent.Err()
	}
}

// timedOut returns the CodeTimeout *Error of hook h.
func (r *Runner) timedOut(c *Context, h *PlanEntry, cause *HookTimeoutError) *Error {
	return &Error{Code: CodeTimeout, Flow: c.flow, Stage: c.stage, Hook: h.ID, Err: cause}
}

// absorbed reports whether err, the failure of hook h, is one its
// fail-open policy takes: then it is recorded in c.failures, logged and
// observed, and the run goes on. A decision ([Context.Abort]) is never
// absorbed; a panic or a timeout always is, for a fail-open hook.
func (r *Runner) absorbed(c *Context, h *PlanEntry, err error) bool {
	if h.OnFailure != FailOpen {
		return false
	}
	own, isOwn := ownFailure(h, err)
	if c.control == ctlAbort && !isOwn {
		return false
	}
	e := own
	if e == nil {
		var ok bool
		if e, ok = errors.AsType[*Error](err); !ok {
			e = &Error{Code: CodeAborted, Flow: c.flow, Stage: c.stage, Hook: h.ID, Err: err}
		}
	}
	rec := c.records()
	rec.failures = append(rec.failures, e)
	r.logger.LogAttrs(c.parent, slog.LevelWarn, "hookflow: hook failed open",
		slog.String("flow", string(c.flow)), slog.String("stage", c.stage.String()),
		slog.String("hook", h.ID), slog.String("request", c.req.ID), slog.Any("error", err))
	r.observe(c, h.ID, "", "failed-open", e)
	return true
}

// ownFailure returns err as the *Error the runner made for hook h's panic
// or timeout, and whether it is one.
func ownFailure(h *PlanEntry, err error) (*Error, bool) {
	e, ok := err.(*Error)
	if ok && e.Hook == h.ID && (e.Code == CodePanic || e.Code == CodeTimeout) {
		return e, true
	}
	return nil, false
}

// failureOutcome is the observer outcome of err, the error that stops the
// run from hook h: "panic" or "timeout" for the runner's own, else def.
func failureOutcome(h *PlanEntry, err error, def string) string {
	if e, ok := ownFailure(h, err); ok {
		if e.Code == CodePanic {
			return "panic"
		}
		return "timeout"
	}
	return def
}
