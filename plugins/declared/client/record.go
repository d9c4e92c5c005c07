package client

import (
	"fmt"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
)

// Outcome is what became of one declaration, at Add or at one Fire.
type Outcome uint8

// The outcomes. Accepted, Invalid, Ignored, NotApproved and OverLimit are
// decided at [Hooks.Add]; the others at [Hooks.Fire], for declarations
// whose event and matcher matched.
const (
	// Accepted: the declaration will fire at its event.
	Accepted Outcome = iota + 1
	// Invalid: the declaration breaks SEP-2282's schema (Record.Err says
	// how) and is ignored.
	Invalid
	// Ignored: its server is not trusted.
	Ignored
	// NotApproved: Config.Approve refused it.
	NotApproved
	// OverLimit: it comes after Config.MaxDeclarations in its server's list.
	OverLimit
	// Injected: its text is among those Fire returned.
	Injected
	// Truncated: its text was cut to fit Config.MaxBytes, then returned.
	Truncated
	// CooledDown: it fired less than Config.Cooldown ago.
	CooledDown
	// RateLimited: it fired Config.Rate.Events times in the last Rate.Per.
	RateLimited
	// CapExceeded: Config.MaxPerEvent declarations, or Config.MaxBytes of
	// text, were already taken by stronger or earlier ones.
	CapExceeded
	// ToolFailed: its context_tool call failed, timed out or returned an
	// isError result (Record.Err says why).
	ToolFailed
	// Empty: its text was empty.
	Empty
)

var outcomeNames = [...]string{
	Accepted:    "accepted",
	Invalid:     "invalid",
	Ignored:     "ignored",
	NotApproved: "not-approved",
	OverLimit:   "over-limit",
	Injected:    "injected",
	Truncated:   "truncated",
	CooledDown:  "cooled-down",
	RateLimited: "rate-limited",
	CapExceeded: "cap-exceeded",
	ToolFailed:  "tool-failed",
	Empty:       "empty",
}

// String returns the outcome's name, e.g. "rate-limited".
func (o Outcome) String() string {
	if o >= Accepted && o <= Empty {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Record is the audit record of one decision about one declaration.
type Record struct {
	Time time.Time
	// Server is the name the server was added under; Index the
	// declaration's position in its list.
	Server string
	Index  int
	// Event is the declaration's event (at Fire, the event fired); zero
	// when an invalid declaration has none this package knows.
	Event declared.Event
	// Declared is the priority the server declared; Priority the one it
	// fires with (Required downgraded to Important unless the server is
	// fully trusted). Both are zero for an invalid declaration.
	Declared declared.Priority
	Priority declared.Priority
	Outcome  Outcome
	// Bytes is the length of the injected text.
	Bytes int
	// Took is how long the context_tool call took; 0 for static text.
	Took time.Duration
	// Err says why a declaration is invalid or its tool failed.
	Err error
}

// String renders the record on one line, without its time, e.g.
// `memory#2 post_tool_use suggestion injected 38B`.
func (r Record) String() string {
	ev := "?"
	if r.Event.Valid() {
		ev = r.Event.String()
	}
	s := fmt.Sprintf("%s#%d %s", r.Server, r.Index, ev)
	if r.Priority != 0 {
		s += " " + r.Priority.String()
		if r.Declared != r.Priority {
			s += " (declared " + r.Declared.String() + ")"
		}
	}
	s += " " + r.Outcome.String()
	if r.Bytes > 0 {
		s += fmt.Sprintf(" %dB", r.Bytes)
	}
	if r.Err != nil {
		s += ": " + r.Err.Error()
	}
	return s
}
