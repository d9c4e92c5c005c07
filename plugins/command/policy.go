package command

import (
	"fmt"
	"strconv"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// Protocol is how a hook reads its input and writes its answer.
type Protocol uint8

const (
	// Claude is the command-hook contract of Claude Code, Codex and Gemini
	// CLI: the event's fields on stdin; exit 0 with optional JSON on
	// stdout, exit 2 to block with stderr as the reason. The default.
	Claude Protocol = iota
	// OLLM is OLLM CLI's protocol: {"event", "data"} on stdin,
	// {"continue", "systemMessage", "data", "error"} on stdout; each hook's
	// data is merged into the next hook's input.
	OLLM
)

// String returns "claude" or "ollm", as settings write it.
func (p Protocol) String() string {
	switch p {
	case Claude:
		return "claude"
	case OLLM:
		return "ollm"
	}
	return "Protocol(" + strconv.Itoa(int(p)) + ")"
}

// ParseProtocol reads a protocol as settings write it; "" is Claude.
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "", "claude":
		return Claude, nil
	case "ollm":
		return OLLM, nil
	}
	return 0, fmt.Errorf("unknown protocol %q (want claude or ollm)", s)
}

// UntrustedPolicy says what happens at Start to a hook whose script is not
// in the trust store (or changed since it was trusted).
type UntrustedPolicy uint8

const (
	// RefuseUntrusted, the default, fails the server's Start, naming each
	// such hook and the command that trusts it.
	RefuseUntrusted UntrustedPolicy = iota
	// SkipUntrusted starts without them: each is logged, with the command
	// that trusts it, and never runs.
	SkipUntrusted
)

// String returns "refuse" or "skip".
func (u UntrustedPolicy) String() string {
	switch u {
	case RefuseUntrusted:
		return "refuse"
	case SkipUntrusted:
		return "skip"
	}
	return "UntrustedPolicy(" + strconv.Itoa(int(u)) + ")"
}

// ParseUntrustedPolicy reads a policy as configuration files write it:
// "refuse" or "skip"; "" is RefuseUntrusted. A near miss names the likely
// policy.
func ParseUntrustedPolicy(s string) (UntrustedPolicy, error) {
	switch s {
	case "", "refuse":
		return RefuseUntrusted, nil
	case "skip":
		return SkipUntrusted, nil
	}
	if near, ok := suggest.Closest(s, []string{"refuse", "skip"}); ok {
		return 0, fmt.Errorf("unknown policy %q (did you mean %q?)", s, near)
	}
	return 0, fmt.Errorf("unknown policy %q (want refuse or skip)", s)
}

// MarshalText writes "refuse" or "skip".
func (u UntrustedPolicy) MarshalText() ([]byte, error) {
	if u != RefuseUntrusted && u != SkipUntrusted {
		return nil, fmt.Errorf("command: %s has no name", u)
	}
	return []byte(u.String()), nil
}

// UnmarshalText reads a policy with [ParseUntrustedPolicy].
func (u *UntrustedPolicy) UnmarshalText(b []byte) error {
	v, err := ParseUntrustedPolicy(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// FailureRule says what the failures of a hook ([FailureKind]) do to the
// call it guards.
type FailureRule uint8

const (
	// RuleDefault, the zero value, is the configuration's rule:
	// [RuleClosed] when [Config.FailClosed] is set, else [RuleAgent].
	RuleDefault FailureRule = iota
	// RuleAgent is the agents' rule, for settings imported from them: only
	// a decision blocks (exit 2, a JSON decision). A hook that cannot
	// start, exits with another code, crashes, times out, prints output
	// its protocol does not allow, or (an http hook) answers with a
	// status other than 2xx is a non-blocking failure: the call goes on,
	// and the failure is logged, audited and counted (see the guide's
	// "Failures"). The failures that only hookflow has, which a caller
	// could provoke to get past a guard, still block: a script changed
	// since it was trusted, output over the cap, the rate limit or
	// cooldown, a concurrency cap full until the timeout, the server's
	// shutdown, the request's cancellation, and a client that cannot
	// sample for a prompt hook.
	RuleAgent
	// RuleClosed blocks the call on every failure: "failClosed": true.
	RuleClosed
	// RuleOpen lets the call go on after every failure, hookflow's own
	// included.
	RuleOpen
)

var ruleNames = [...]string{RuleDefault: "", RuleAgent: "agent", RuleClosed: "closed", RuleOpen: "open"}

// String returns "agent", "closed" or "open" ("" for RuleDefault), as
// settings write it.
func (r FailureRule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return "FailureRule(" + strconv.Itoa(int(r)) + ")"
}

// Valid reports whether r is one of the rules.
func (r FailureRule) Valid() bool { return int(r) < len(ruleNames) }

// ParseFailureRule reads a rule as settings write it ("onFailure"):
// "agent", "closed" or "open"; "" is RuleDefault.
func ParseFailureRule(s string) (FailureRule, error) {
	for r, n := range ruleNames {
		if s == n {
			return FailureRule(r), nil
		}
	}
	if near, ok := suggest.Closest(s, ruleNames[1:]); ok {
		return 0, fmt.Errorf("unknown failure rule %q (did you mean %q?)", s, near)
	}
	return 0, fmt.Errorf("unknown failure rule %q (want agent, closed or open)", s)
}

// resolve returns r with RuleDefault replaced by the configuration's rule.
func (r FailureRule) resolve(failClosed bool) FailureRule {
	if r != RuleDefault {
		return r
	}
	if failClosed {
		return RuleClosed
	}
	return RuleAgent
}

// policy returns what a failure of kind k does under r (resolved):
// FailClosed blocks the call, FailOpen lets it go on.
func (r FailureRule) policy(k FailureKind) flows.FailurePolicy {
	switch r {
	case RuleOpen:
		return flows.FailOpen
	case RuleAgent:
		if k.agentKind() {
			return flows.FailOpen
		}
	}
	return flows.FailClosed
}
