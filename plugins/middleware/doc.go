// Package middleware runs Civic-style middlewares as hookflow hooks: a
// chain of values, each with a request, a result and an error handler per
// flow, that wrap the flow's execute step like the layers of an onion.
//
// # The onion
//
// For each flow a middleware handles, the chain becomes one hook per
// middleware in each of beforeExecute, afterExecute and onError, at
// [Config.Priority]:
//
//   - On the way in (beforeExecute), request handlers run from the head of
//     the chain to its tail. Each may rewrite the input and answers with an
//     [Action]: [Continue], [Respond] (answer now: the rest of the chain and
//     the execute step are skipped) or [ContinueAsync].
//   - On the way out, handlers run from the tail back to the head, and only
//     for the middlewares that saw the request: those whose request handler
//     continued. A middleware that answered or refused does not see its own
//     answer or failure; those before it do.
//   - A result travels through result handlers (afterExecute), a failure
//     through error handlers (onError). A result handler that fails turns
//     the rest of the way out into error handling; an error handler that
//     recovers with a result turns it back into result handling. The hook
//     of the middleware where the switch happened walks the rest of the way
//     out itself, so that the run's DecidedBy names that middleware: the
//     one whose result handler failed, or whose error handler recovered. An
//     error handler that passes the failure on unchanged leaves it, and
//     the deciding hook, as they were.
//
// The runnable example shows the order: requests a, b, c; results c, b, a;
// a failure at c goes to b and a; b recovers, and a sees a result.
//
// The chain runs inside the flow, so everything else still applies: hooks
// at a higher priority run before the chain on the way in (auth, rate
// limits, remote interceptors) and, in afterExecute, before it on the way
// out; a hook that stops the request before the chain means no middleware
// saw it. A tool's failure is a failure (error handlers), not an isError
// result; the client still gets the isError result of an unrecovered
// failure.
//
// # ContinueAsync
//
// [ContinueAsync] answers the client now and finishes the chain in the
// background: the middlewares after the one that answered, and the flow's
// execute step, run in a run of their own (its plan holds the chain's tail
// and nothing else; its context is the request's, without its
// cancellation, bounded by [Config.AsyncTimeout]). The callback receives
// what the client would have received — for a tool, the result, an isError
// result for a failure — exactly once, on its own goroutine. The answer
// sent now goes back through the result handlers of the middlewares before
// the one that answered; the request's finally hooks run once, for the
// answer sent now, and the background run runs no hook but the chain's.
// Background runs are in-process only: a remote hook cannot call back.
//
// # Concurrency
//
// Handlers run on the request's goroutine, one at a time per request, and
// concurrently across requests; a ContinueAsync callback runs on a
// goroutine of its own.
package middleware
