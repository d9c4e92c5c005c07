package flows

import (
	"context"
	"fmt"
	"time"

	"github.com/hookflow/hookflow/internal/suggest"
)

// FailurePolicy says what a failure does: a hook's, to its run
// ([Hook.OnFailure]), or that of a service a plugin depends on, to the
// request the plugin was deciding (the ratelimit plugin's backend, the
// session gate's store; each plugin's doc says what its policy does). It
// is hookflow's one failure-policy type, and its zero value, FailClosed,
// is the default wherever it is used.
type FailurePolicy uint8

// The failure policies.
const (
	// FailClosed: a failure stops what depends on it. A hook's failure
	// stops the run as the run contract says (in finally it is logged and
	// recorded); a plugin whose service failed refuses the request. It is
	// the default.
	FailClosed FailurePolicy = iota
	// FailOpen: a failure lets the work go on. A hook's failure is logged
	// at warning level, recorded in [Context.Failures] and reported to
	// the observer with the outcome "failed-open"; the run goes on as if
	// the hook had returned nil and its error is never changed by it. A
	// plugin whose service failed lets the request through, undecided.
	FailOpen
)

var policyNames = [...]string{FailClosed: "closed", FailOpen: "open"}

// String returns "closed" or "open", the words directives and
// configuration files use.
func (p FailurePolicy) String() string {
	if p.Valid() {
		return policyNames[p]
	}
	return fmt.Sprintf("FailurePolicy(%d)", uint8(p))
}

// Valid reports whether p is FailClosed or FailOpen.
func (p FailurePolicy) Valid() bool { return int(p) < len(policyNames) }

// ParseFailurePolicy returns the policy named s: "closed" or "open". An
// unknown word is a CodeInvalid error with a did-you-mean hint.
func ParseFailurePolicy(s string) (FailurePolicy, error) {
	for p, name := range policyNames {
		if s == name {
			return FailurePolicy(p), nil
		}
	}
	msg := fmt.Sprintf("unknown failure policy %q: want closed or open", s)
	if near, ok := suggest.Closest(s, policyNames[:]); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return 0, &Error{Code: CodeInvalid, Msg: msg}
}

// MarshalText returns "closed" or "open", so that a configuration file
// or a JSON document spells a policy as [FailurePolicy.String] does; an
// invalid policy is a CodeInvalid error.
func (p FailurePolicy) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, &Error{Code: CodeInvalid, Msg: fmt.Sprintf("no failure policy has the value %d: want closed or open", uint8(p))}
	}
	return []byte(policyNames[p]), nil
}

// UnmarshalText sets p to the policy text names, as [ParseFailurePolicy]
// reads it: a configuration file's "on_backend_error: open" decodes
// through it.
func (p *FailurePolicy) UnmarshalText(text []byte) error {
	v, err := ParseFailurePolicy(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// HookTimeoutError is the cause of a hook call that ran past its
// [Hook.Timeout]: the hook's Go context is cancelled with it, and the
// CodeTimeout *Error of the run (or, for a fail-open hook, of
// [Context.Failures]) wraps it.
type HookTimeoutError struct {
	// Hook is the hook's ID.
	Hook  string
	After time.Duration
}

// Error says how long the hook was given; it is what a client reads.
func (e *HookTimeoutError) Error() string {
	return fmt.Sprintf("hook timed out after %v", e.After)
}

// Is reports whether target is context.DeadlineExceeded, so that code
// checking for a deadline sees one.
func (e *HookTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
