package flows

import (
	"log/slog"
	"runtime/debug"

	"github.com/hookflow/hookflow/stages"
)

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
func (r *Runner) onErrorFrom(c *Context, hooks []PlanEntry, i int) (next int) {
	defer func() {
		if v := recover(); v != nil {
			h := &hooks[i]
			c.decided = h.ID
			e := &Error{Code: CodePanic, Flow: c.flow, Stage: stages.OnError, Hook: h.ID, Err: &PanicError{Value: v, Stack: debug.Stack()}}
			r.logPanic(c, e)
			c.err = e
			r.observe(c, h.ID, "", "panic", c.err)
			next = i + 1
		}
	}()
	for ; i < len(hooks); i++ {
		h := &hooks[i]
		c.control = ctlNone
		var err error
		if h.guarded() {
			err = r.call(c, h)
		} else {
			err = h.Fn(c)
		}
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			if r.absorbed(c, h, err) {
				continue
			}
			c.decided = h.ID
			c.err = wrap(err, c, h.ID)
			r.observe(c, h.ID, "", failureOutcome(h, err, "abort"), err)
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

// finally runs hooks, the finally hooks. Nothing they do changes the
// outcome: errors and panics are logged and recorded, Respond is refused,
// and the output is put back after every hook.
func (r *Runner) finally(c *Context, hooks []PlanEntry) {
	out := c.output
	for i := 0; i < len(hooks); {
		i = r.finallyFrom(c, hooks, i, out)
	}
}

// finallyFrom runs hooks[from:] and returns where to go on, as
// onErrorFrom. c.at names the running hook, so that the deferred recover
// holds little.
func (r *Runner) finallyFrom(c *Context, hooks []PlanEntry, from int, out any) (next int) {
	defer func() {
		if v := recover(); v != nil {
			c.output = out
			r.finallyFailed(c, &c.plan.Stages[stages.Finally][c.at-1], CodePanic, &PanicError{Value: v, Stack: debug.Stack()})
			next = c.at
		}
	}()
	for i := from; i < len(hooks); i++ {
		h := &hooks[i]
		c.at = i + 1
		c.control = ctlNone
		var err error
		if h.guarded() {
			err = r.call(c, h)
		} else {
			err = h.Fn(c)
		}
		c.output = out
		if err == nil && c.control == ctlNone {
			if c.observer != nil {
				r.emit(c, h.ID, "", "ok", nil)
			}
			continue
		}
		if err == nil && c.control == ctlAbort {
			err = c.abortErr
		}
		if err != nil {
			if !r.absorbed(c, h, err) {
				r.finallyFailed(c, h, CodeAborted, err)
			}
			continue
		}
		switch c.control {
		case ctlSkip:
			r.observe(c, h.ID, "", "skip", nil)
			return len(hooks)
		case ctlRespond:
			r.logger.LogAttrs(c.parent, slog.LevelWarn, "hookflow: Respond refused in finally",
				slog.String("flow", string(c.flow)), slog.String("hook", h.ID))
			r.observe(c, h.ID, "", "refused", nil)
		}
	}
	return len(hooks)
}

// finallyFailed records and logs the error or panic of a finally hook.
func (r *Runner) finallyFailed(c *Context, h *PlanEntry, code Code, err error) {
	e, own := ownFailure(h, err)
	if !own {
		e = &Error{Code: code, Flow: c.flow, Stage: stages.Finally, Hook: h.ID, Err: err}
	}
	rec := c.records()
	rec.finallyErr = append(rec.finallyErr, e)
	r.logger.LogAttrs(c.parent, slog.LevelError, "hookflow: finally hook failed",
		slog.String("flow", string(c.flow)), slog.String("hook", h.ID), slog.Any("error", err))
	r.observe(c, h.ID, "", "error", e)
}
