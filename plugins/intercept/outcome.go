package intercept

import (
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Outcome is what one invocation of an interceptor decided, as the audit
// decisions and the log record it.
type Outcome uint8

// The outcomes.
const (
	// Allowed: an active validator found the payload valid.
	Allowed Outcome = iota + 1
	// Warned: an active validator found it invalid with severity warn or
	// info, which does not block.
	Warned
	// Blocked: an active validator found it invalid with severity error
	// (or none, or one the SEP does not define); the operation is blocked.
	Blocked
	// Modified: an active mutator replaced the payload.
	Modified
	// Unchanged: an active mutator left the payload as it was.
	Unchanged
	// Audited: an audit-mode interceptor answered; its result is recorded
	// and neither blocks nor changes anything (a mutator's is a shadow
	// mutation).
	Audited
	// FailedOpen: an active interceptor failed (crash, timeout, bad
	// answer) and its policy lets the operation through.
	FailedOpen
	// FailedClosed: an active interceptor failed and its policy blocks the
	// operation (the default).
	FailedClosed
	// FailedAudit: an audit-mode interceptor failed; recorded only.
	FailedAudit
	// Skipped: the interceptor was not invoked: the protocol version of
	// the request is outside its compat range.
	Skipped
)

var outcomeNames = [...]string{"", "allowed", "warned", "blocked", "modified", "unchanged", "audited",
	"failed_open", "failed_closed", "failed_audit", "skipped"}

// String returns the outcome's name, e.g. "failed_open".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Blocks reports whether the outcome blocks the operation.
func (o Outcome) Blocks() bool { return o == Blocked || o == FailedClosed }

// BlockedError is the failure of a run an interceptor blocked: hooks of
// onError and finally find it with errors.As on the run's error, and the
// run's DecidedBy names the interceptor's hook.
type BlockedError struct {
	// Interceptor is "<server>:<name>".
	Interceptor string
	// Type and Phase say which pass blocked.
	Type  wire.Type
	Phase wire.Phase
	// Outcome is Blocked (a validator said no) or FailedClosed (the
	// interceptor failed and fails closed).
	Outcome Outcome
	// Messages are the validator's findings.
	Messages []wire.Message
	// Err is the invocation's failure, for FailedClosed. BlockedError does
	// not unwrap to it: a JSON-RPC error of the host must not become the
	// client's protocol error.
	Err error

	explain bool
}

// Error is what the client reads: that an interceptor blocked the request
// or result; with Config.Explain, also the validator's messages or the
// failure.
func (e *BlockedError) Error() string {
	what := "request"
	if e.Phase == wire.Response {
		what = "result"
	}
	var b strings.Builder
	if e.Outcome == FailedClosed {
		fmt.Fprintf(&b, "the %s was blocked: an interceptor failed, and its policy blocks on failure", what)
		if e.explain && e.Err != nil {
			fmt.Fprintf(&b, " (%s: %v)", e.Interceptor, e.Err)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "the %s was blocked by an interceptor", what)
	if e.explain {
		fmt.Fprintf(&b, " (%s)", e.Interceptor)
		for i, m := range e.Messages {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString("; ")
			}
			if m.Path != "" {
				b.WriteString(m.Path + ": ")
			}
			b.WriteString(m.Message)
		}
	}
	return b.String()
}
