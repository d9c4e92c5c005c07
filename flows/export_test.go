package flows

import "context"

// RunInspect runs like [Runner.Run] and calls inspect with the Context
// after the run, before it is recycled, so tests can read the whole outcome.
func (r *Runner) RunInspect(ctx context.Context, run Run, inspect func(*Context)) (any, error) {
	return r.run(ctx, &run, inspect)
}
