package sessiongate

import "errors"

// BlockedError is why a call was blocked: the model reads its text (an
// isError result), and hooks that run later find it with errors.As on
// the run's error; the run's DecidedBy names the gate's hook.
type BlockedError struct {
	Block
	// Text is what the model reads.
	Text string
}

// Error returns the text the model reads.
func (e *BlockedError) Error() string { return e.Text }

// UnavailableError is why a gated call was refused when the gate could not
// learn the session's state and the policy is [flows.FailClosed]. Its text
// does not show the cause; Unwrap does.
type UnavailableError struct{ Err error }

// Error returns the text the model reads.
func (e *UnavailableError) Error() string {
	return "the session gate cannot read this session's state, so the call was refused; retry later"
}

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// errNoKey is the cause of an UnavailableError when Config.Key found no
// key.
var errNoKey = errors.New("the request has no session key (stateless HTTP? set Config.Key to ByPrincipal, ByHeader or a function of your own)")
