package flows

import (
	"encoding/json"
	"time"
)

// Decision is one decision a hook took about a run that the run's outcome
// does not show by itself, e.g. a remote interceptor that allowed, warned
// about or rewrote a request. Hooks record decisions with
// [Context.Decide]; readers of the run (an audit trail, a tracer) read
// them with [Context.Decisions] in finally. Its JSON form is the one audit
// events carry.
type Decision struct {
	// By names who decided, e.g. the interceptor "guard:pii-redactor".
	By string `json:"by"`
	// What says what was decided on, e.g. "validation request".
	What string `json:"what,omitempty"`
	// Outcome is the decision, e.g. "allowed", "blocked", "modified".
	Outcome string `json:"outcome"`
	// Duration is how long deciding took (in nanoseconds in JSON).
	Duration time.Duration `json:"duration"`
	// Reason explains the outcome. Readers cap it as they cap other
	// texts: it may quote what the decider saw.
	Reason string `json:"reason,omitempty"`
}

// MaxDecisions is how many decisions a run keeps: [Context.Decide] drops
// the ones after, and counts them ([Context.DroppedDecisions]), so that a
// hook looping over a peer's input cannot make a run hold an unbounded
// list.
const MaxDecisions = 64

// Decide records d on the run, after the decisions recorded before it.
// Past [MaxDecisions] it drops d and counts it. Like every Context method
// it is called from the run's hooks, on the goroutine running the hook: a
// hook that decides on several goroutines at once (e.g. invoking
// validators concurrently) collects their verdicts and records them after
// joining, in an order that does not depend on timing. Decisions that a
// hook with a [Hook.Timeout] records are kept when it returns in time and
// dropped with its other changes when it is abandoned. A run that records
// none allocates nothing for them.
func (c *Context) Decide(d Decision) {
	rec := c.records()
	if len(rec.decisions) == MaxDecisions {
		rec.droppedDecisions++
		return
	}
	rec.decisions = append(rec.decisions, d)
}

// Decisions returns the decisions recorded with [Context.Decide], in the
// order they were recorded; nil when there were none. The slice belongs
// to the run, which is recycled when it ends: a reader that keeps the
// decisions past its hook (e.g. on a queue) copies them.
func (c *Context) Decisions() []Decision {
	if c.rec == nil || len(c.rec.decisions) == 0 {
		return nil
	}
	return c.rec.decisions
}

// DroppedDecisions returns how many decisions [Context.Decide] dropped
// because the run already held [MaxDecisions].
func (c *Context) DroppedDecisions() int {
	if c.rec == nil {
		return 0
	}
	return c.rec.droppedDecisions
}

// Refusal is a request refused before any flow ran for it, e.g. by HTTP
// middleware that answers 403 before the MCP server reads the message.
// No hook sees such a request, so whoever refuses it hands a Refusal to
// the readers that record runs (an audit trail), which record it as a run
// of Flow that a hook blocked.
type Refusal struct {
	// Flow is the flow the request would have run, e.g. ToolsCallTool.
	Flow ID
	// Entity is the tool, prompt or resource the request named, or "".
	Entity string
	// Request is what is known of the request: the ID the refuser minted
	// for it, its Method, SessionID and TokenInfo; nil reads as an empty
	// Request (its methods accept nil).
	Request *Request
	// By names who refused, in the form of a hook ID, e.g.
	// "server/plugin:auth/http:scope-challenge".
	By string
	// Err is why, as the client was told.
	Err error
	// Args are the request's arguments as the client sent them, not
	// redacted: a reader that records them applies its [Redactor].
	Args json.RawMessage
}
