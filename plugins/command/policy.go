package command

import (
	"fmt"
	"strconv"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

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

// MarshalText writes "refuse" or "skip".
func (u UntrustedPolicy) MarshalText() ([]byte, error) {
	if u != RefuseUntrusted && u != SkipUntrusted {
		return nil, fmt.Errorf("command: %s has no name", u)
	}
	return []byte(u.String()), nil
}

// UnmarshalText reads a policy as configuration files write it:
// "refuse" or "skip"; "" is RefuseUntrusted. A near miss names the likely
// policy.
func (u *UntrustedPolicy) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "", "refuse":
		*u = RefuseUntrusted
	case "skip":
		*u = SkipUntrusted
	default:
		if near, ok := suggest.Closest(s, []string{"refuse", "skip"}); ok {
			return fmt.Errorf("unknown policy %q (did you mean %q?)", s, near)
		}
		return fmt.Errorf("unknown policy %q (want refuse or skip)", s)
	}
	return nil
}

// resolve returns r with RuleDefault replaced by the configuration's rule.
func resolveRule(r settings.FailureRule, failClosed bool) settings.FailureRule {
	if r != settings.RuleDefault {
		return r
	}
	if failClosed {
		return settings.RuleClosed
	}
	return settings.RuleAgent
}

// policy returns what a failure of kind k does under r (resolved):
// FailClosed blocks the call, FailOpen lets it go on.
func rulePolicy(r settings.FailureRule, k FailureKind) flows.FailurePolicy {
	if k == FailLoop {
		return flows.FailClosed // a loop would get a call past its own guard
	}
	switch r {
	case settings.RuleOpen:
		return flows.FailOpen
	case settings.RuleAgent:
		if k.agentKind() {
			return flows.FailOpen
		}
	}
	return flows.FailClosed
}
