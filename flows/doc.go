// Package flows defines hookflow's flows and runs them.
//
// A flow is the life of one MCP request: [ToolsCallTool] for tools/call,
// [ToolsListTools] for tools/list, and so on for every method in [All]. A run
// of a flow walks the six stages of package stages, calling the hooks that a
// compiled [Plan] lists for each stage, with the flow's own [Steps] (validate
// and execute) in between.
//
// # The run contract
//
// Order:
//
//	beforeValidation → validate → afterValidation → beforeExecute → execute → afterExecute → finally
//
// onError runs between a failure and finally whenever anything before finally
// fails, validation included. Within a stage, hooks run in descending
// priority; hooks of equal priority run in registration order. The plan is
// compiled by the scope package; the runner never sorts.
//
// What a hook can do, stage by stage:
//
//	                     before*/afterValidation/*Execute        onError                          finally
//	return nil           next hook                                next hook                        next hook
//	c.Skip()             rest of the stage skipped, flow goes on  rest of onError skipped          rest of finally skipped
//	return err/Abort     flow stops; onError; finally; fails      err replaces the flow's error    logged and recorded; outcome unchanged
//	c.Respond(out)       output set; up to and including execute  recovers: flow succeeds with     refused: logged
//	                     skipped; afterExecute runs with out (in  out; rest of onError skipped
//	                     afterExecute: replaces the output)
//	panic                as Abort, with a *PanicError cause       as Abort                         logged
//	ctx cancelled        checked before each hook: Abort with     not checked                      not checked; finally runs
//	                     ctx.Err() (CodeCanceled)
//
// finally runs exactly once per run, after success, failure, abort, panic,
// early answer or cancellation.
//
// # Timeouts and failure policy
//
// A hook may carry a [Hook.Timeout] and a [Hook.OnFailure] policy. A hook
// with a Timeout runs on a goroutine of its own with a copy of the run's
// Context; when the time is up its Go context is cancelled with a
// *[HookTimeoutError] and the run goes on without waiting for it (its late
// changes to the Context are dropped). A failure is an error the hook
// returns, a panic, or its timeout; [Context.Abort] is a decision, not a
// failure, and stops the run under either policy.
//
//	                     before*/afterValidation/*Execute        onError                          finally
//	times out, closed    as Abort, with CodeTimeout               as Abort, with CodeTimeout       logged and recorded (CodeTimeout)
//	fails, open          recorded in Failures; next hook          recorded; the run's error stays  recorded in Failures; next hook
//
// A fail-open failure is logged at warning level, recorded in
// [Context.Failures] (finally hooks, such as an audit trail, read it there)
// and reported to the observer with the outcome "failed-open"; it never
// changes the run's error. In onError and finally, which run after a
// cancellation too, a timed hook's context is bounded by its Timeout only.
// Hooks without a Timeout or a fail-open policy are called directly and
// cost nothing extra.
//
// Errors from hooks reach the caller as an *[Error] with CodeAborted (or
// CodePanic, CodeCanceled) naming the flow, stage and hook; an *Error a hook
// returns is passed on unchanged. [Context.DecidedBy] names the hook that
// aborted, answered or recovered a run, so operators can tell why a call was
// blocked.
//
// # State
//
// Hooks of one run share typed state through a [Key]:
//
//	var started = flows.NewKey[time.Time]("audit.started")
//
// The state is allocated on the first Set of a run; a run that stores
// nothing allocates nothing for it.
//
// State that outlives a run and belongs to an MCP session goes in a
// [SessionState], which holds the session weakly and lets go of its value
// when the session is garbage collected.
//
// # Decisions
//
// A hook that decides something the run's outcome does not show (a remote
// interceptor that allowed or rewrote a request) records a [Decision] with
// [Context.Decide]; readers of the run (an audit trail, a tracer) read
// [Context.Decisions] in finally. A run keeps at most [MaxDecisions] and
// counts the rest. A request refused before any run, by HTTP middleware,
// is handed to such readers as a [Refusal].
//
// # Upstreams' health
//
// A plugin that forwards to upstream servers (the gateway) reports their
// state as a [HealthReport] through [HealthReporter]; a plugin that shows
// it (the console) takes a HealthReporter, so that neither imports the
// other.
//
// # Performance
//
// A run with no hooks allocates nothing: Contexts are recycled by the
// [Runner], plans are immutable slices, and [Steps] is a long-lived value.
// The request path takes no lock, reads no map and uses no reflection.
//
// # Concurrency
//
// A [Runner] and a [Plan] may be used by any number of goroutines at once. A
// [Context] belongs to one run; a run's hooks execute one after another, on
// the goroutine that called [Runner.Run], except a hook with a
// [Hook.Timeout], which runs on a goroutine of its own with a copy of the
// Context while the run waits for it (or, once the time is up, goes on
// without it; see "Timeouts and failure policy").
package flows
