package sessiongate

import (
	"fmt"
	"strconv"

	"github.com/hookflow/hookflow/internal/suggest"
)

// State is where a session is in the gate's state machine. States only
// move forward: Uninitialized → Initialized → Ready → Working.
type State uint8

// The states.
const (
	// Uninitialized: the init tool has not succeeded in the session.
	Uninitialized State = iota
	// Initialized: the init tool succeeded; with a ready tool
	// ([Config.ReadyTool]) the session waits for it.
	Initialized
	// Ready: the gated tools may be called.
	Ready
	// Working: a gated tool has succeeded.
	Working
)

var stateNames = [...]string{"uninitialized", "initialized", "ready", "working"}

// String returns the state's name, e.g. "ready".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// ParseState returns the state named s, or an error with a did-you-mean
// hint.
func ParseState(s string) (State, error) {
	for i, n := range stateNames {
		if n == s {
			return State(i), nil
		}
	}
	if best, ok := suggest.Closest(s, stateNames[:]); ok {
		return 0, fmt.Errorf("unknown session state %q (did you mean %q?)", s, best)
	}
	return 0, fmt.Errorf("unknown session state %q (want uninitialized, initialized, ready or working)", s)
}

// valid reports whether s is one of the states.
func (s State) valid() bool { return int(s) < len(stateNames) }

// Transition is one step of a session's state, caused by one call.
type Transition struct {
	// Key is the session's key ([Config.Key]).
	Key string
	// Tool is the tool whose call caused the transition.
	Tool string
	// Request is the call's hookflow request ID.
	Request  string
	From, To State
}

// String describes the transition, e.g. `session_init: uninitialized →
// initialized`.
func (t Transition) String() string {
	return t.Tool + ": " + t.From.String() + " → " + t.To.String()
}
