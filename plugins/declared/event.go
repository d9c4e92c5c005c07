package declared

// The events and priorities live in internal/declaredkinds, which hookgen
// reads too; this file gives them their names in this package.

import "github.com/hookflow/hookflow/internal/declaredkinds"

// Event is one of the normalized lifecycle events of SEP-2282 at which a
// client fires declarations.
type Event = declaredkinds.Event

// The six events. The zero value is not an event.
const (
	// SessionStart fires when the client starts an agent session.
	SessionStart = declaredkinds.SessionStart
	// SessionEnd fires when the client is about to close the session.
	SessionEnd = declaredkinds.SessionEnd
	// PreToolUse fires when the agent is about to call a tool.
	PreToolUse = declaredkinds.PreToolUse
	// PostToolUse fires when a tool call has completed.
	PostToolUse = declaredkinds.PostToolUse
	// PreRequest fires when the agent is about to process a user message.
	PreRequest = declaredkinds.PreRequest
	// PostRequest fires when the agent has finished responding to one.
	PostRequest = declaredkinds.PostRequest
)

// Events returns the six events in the order of the SEP's table.
func Events() []Event { return declaredkinds.Events() }

// EventNames returns the wire names of the six events, in the order of
// [Events].
func EventNames() []string { return declaredkinds.EventNames() }

// ParseEvent returns the event named s. It is strict (the wire names are
// lowercase snake case); the error of a near miss names the likely event.
func ParseEvent(s string) (Event, error) { return declaredkinds.ParseEvent(s) }

// Priority is how strongly a server wants the agent to act on a
// declaration's text. A larger value is stronger.
type Priority = declaredkinds.Priority

// The three priorities. The zero value is not a priority.
const (
	// Suggestion: the agent may consider the text or ignore it.
	Suggestion = declaredkinds.Suggestion
	// Important: the agent should give the text serious consideration.
	Important = declaredkinds.Important
	// Required: the agent must act on the text. Clients honour it only
	// for servers the user trusts fully.
	Required = declaredkinds.Required
)

// PriorityNames returns the wire names of the three priorities, weakest
// first.
func PriorityNames() []string { return declaredkinds.PriorityNames() }

// ParsePriority returns the priority named s, strictly; the error of a near
// miss names the likely priority.
func ParsePriority(s string) (Priority, error) { return declaredkinds.ParsePriority(s) }
