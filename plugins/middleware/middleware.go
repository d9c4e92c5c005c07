package middleware

import (
	"github.com/hookflow/hookflow/flows"
)

// Middleware is one Civic-style middleware: a name and, per flow, the
// functions that see the request on its way in and its result or failure
// on its way out.
type Middleware struct {
	// Name identifies the middleware in hook IDs; unique within a chain.
	Name string
	// Flows are its handlers, one Handlers per flow; a middleware without
	// handlers for a flow lets that flow's requests pass untouched.
	Flows []Handlers
}

// Handlers are one middleware's functions for one flow. Each may be nil.
type Handlers struct {
	// Flow is the flow they handle.
	Flow flows.ID
	// Request sees the request on its way in, from the head of the chain
	// to its tail (the typed input: c.Input(), or a typed view with
	// flows.As). It may rewrite the input (c.SetInput, or a view's
	// setters), and answers with an [Action]: go on ([Continue]), answer
	// now ([Respond]), or answer now and finish in the background
	// ([ContinueAsync]). An error stops the request: the middlewares
	// before it see the failure on the way out; it does not.
	Request func(c *flows.Context) (Action, error)
	// Result sees the result on its way out, from the tail back to the
	// head (c.Output()); it may rewrite it with c.SetOutput. An error turns
	// the rest of the way out into error handling.
	Result func(c *flows.Context) error
	// Error sees a failure on its way out (the execute step's error, a
	// later middleware's error, a block). Returning (out, nil) recovers:
	// the run succeeds with out, and the rest of the way out runs result
	// handlers. Returning (nil, err) passes err on (the same error, or
	// another one that replaces it).
	Error func(c *flows.Context, err error) (any, error)
}

// Action is what a request handler decides: [Continue], [Respond] or
// [ContinueAsync]. The zero Action is Continue.
type Action struct {
	kind  actionKind
	out   any
	async func(out any, err error)
}

type actionKind uint8

const (
	actContinue actionKind = iota
	actRespond
	actAsync
)

// Continue passes the request on to the next middleware, and in the end
// to the flow's execute step.
func Continue() Action { return Action{} }

// Respond answers the request with out now: the rest of the chain and the
// execute step are skipped, and out goes back through the result handlers
// of the middlewares before this one.
func Respond(out any) Action { return Action{kind: actRespond, out: out} }

// ContinueAsync answers the request with out now, as Respond does, and
// finishes the chain in the background: the rest of the chain and the
// execute step run in a run of their own, and done receives the final
// result or error (what the client would have received) once they
// finish. done is called exactly once, on its own goroutine.
func ContinueAsync(out any, done func(out any, err error)) Action {
	return Action{kind: actAsync, out: out, async: done}
}
