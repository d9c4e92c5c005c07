// Package declaredkinds is the vocabulary of SEP-2282 hook declarations
// (plugins/declared): the events and priorities with their wire names and
// parsers, and the rules a declaration's fields must follow.
// plugins/declared gives them their names in its own package; hookgen's
// //mcp:declare extension reads them here, so that it needs no plugin.
package declaredkinds

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/internal/suggest"
)

// Event is one of the normalized lifecycle events of SEP-2282 at which a
// client fires declarations.
type Event uint8

// The six events. The zero value is not an event.
const (
	// SessionStart fires when the client starts an agent session.
	SessionStart Event = iota + 1
	// SessionEnd fires when the client is about to close the session.
	SessionEnd
	// PreToolUse fires when the agent is about to call a tool.
	PreToolUse
	// PostToolUse fires when a tool call has completed.
	PostToolUse
	// PreRequest fires when the agent is about to process a user message.
	PreRequest
	// PostRequest fires when the agent has finished responding to one.
	PostRequest
)

var eventNames = [...]string{
	SessionStart: "session_start",
	SessionEnd:   "session_end",
	PreToolUse:   "pre_tool_use",
	PostToolUse:  "post_tool_use",
	PreRequest:   "pre_request",
	PostRequest:  "post_request",
}

// Events returns the six events in the order of the SEP's table.
func Events() []Event {
	return []Event{SessionStart, SessionEnd, PreToolUse, PostToolUse, PreRequest, PostRequest}
}

// EventNames returns the wire names of the six events, in the order of
// [Events].
func EventNames() []string { return eventNames[1:] }

// Valid reports whether e is one of the six events.
func (e Event) Valid() bool { return e >= SessionStart && e <= PostRequest }

// IsTool reports whether e is a tool event (pre_tool_use, post_tool_use),
// the only events a matcher applies to.
func (e Event) IsTool() bool { return e == PreToolUse || e == PostToolUse }

// String returns the event's wire name, e.g. "post_tool_use".
func (e Event) String() string {
	if e.Valid() {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// MarshalText returns the event's wire name.
func (e Event) MarshalText() ([]byte, error) {
	if !e.Valid() {
		return nil, fmt.Errorf("declared: invalid event %d", uint8(e))
	}
	return []byte(eventNames[e]), nil
}

// UnmarshalText parses a wire name with [ParseEvent].
func (e *Event) UnmarshalText(b []byte) error {
	v, err := ParseEvent(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// ParseEvent returns the event named s. It is strict (the wire names are
// lowercase snake case); the error of a near miss names the likely event.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events() {
		if eventNames[e] == s {
			return e, nil
		}
	}
	return 0, suggest.Unknown("event", "events", s, EventNames())
}

// Priority is how strongly a server wants the agent to act on a
// declaration's text. A larger value is stronger.
type Priority uint8

// The three priorities. The zero value is not a priority.
const (
	// Suggestion: the agent may consider the text or ignore it.
	Suggestion Priority = iota + 1
	// Important: the agent should give the text serious consideration.
	Important
	// Required: the agent must act on the text. Clients honour it only
	// for servers the user trusts fully.
	Required
)

var priorityNames = [...]string{
	Suggestion: "suggestion",
	Important:  "important",
	Required:   "required",
}

// PriorityNames returns the wire names of the three priorities, weakest
// first.
func PriorityNames() []string { return priorityNames[1:] }

// Valid reports whether p is one of the three priorities.
func (p Priority) Valid() bool { return p >= Suggestion && p <= Required }

// String returns the priority's wire name, e.g. "important".
func (p Priority) String() string {
	if p.Valid() {
		return priorityNames[p]
	}
	return fmt.Sprintf("Priority(%d)", uint8(p))
}

// MarshalText returns the priority's wire name.
func (p Priority) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("declared: invalid priority %d", uint8(p))
	}
	return []byte(priorityNames[p]), nil
}

// UnmarshalText parses a wire name with [ParsePriority].
func (p *Priority) UnmarshalText(b []byte) error {
	v, err := ParsePriority(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// ParsePriority returns the priority named s, strictly; the error of a near
// miss names the likely priority.
func ParsePriority(s string) (Priority, error) {
	for p := Suggestion; p <= Required; p++ {
		if priorityNames[p] == s {
			return p, nil
		}
	}
	return 0, suggest.Unknown("priority", "priorities", s, PriorityNames())
}

// Check returns the first thing wrong with a declaration of these fields
// (hasMatcher: it sets a matcher field): the field as it is written on the
// wire ("" for the declaration as a whole) and what is wrong with it; ""
// and "" for a valid declaration.
func Check(event Event, priority Priority, context, contextTool string, contextToolArgs []byte, hasMatcher bool) (field, msg string) {
	switch {
	case !event.Valid():
		return "event", fmt.Sprintf("missing or invalid (events: %s)", strings.Join(EventNames(), ", "))
	case !priority.Valid():
		return "priority", fmt.Sprintf("missing or invalid (priorities: %s)", strings.Join(PriorityNames(), ", "))
	case context != "" && contextTool != "":
		return "", "context and context_tool are mutually exclusive: set one"
	case context == "" && contextTool == "":
		return "", "context or context_tool is required"
	case len(contextToolArgs) > 0 && contextTool == "":
		return "context_tool_args", "requires context_tool"
	case hasMatcher && !event.IsTool():
		return "matcher", fmt.Sprintf("applies to pre_tool_use and post_tool_use only, not %s", event)
	}
	if len(contextToolArgs) > 0 {
		if err := CheckArgs(string(contextToolArgs)); err != nil {
			return "context_tool_args", err.Error()
		}
	}
	return "", ""
}

// CheckArgs reports whether raw is a JSON object, as context_tool_args must
// be.
func CheckArgs(raw string) error {
	var obj map[string]any
	err := json.Unmarshal([]byte(raw), &obj)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("want a JSON object: %v", err)
	case err != nil || obj == nil:
		return errors.New("want a JSON object")
	}
	return nil
}
