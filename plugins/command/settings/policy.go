package settings

import (
	"fmt"
	"strconv"

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
	// Copilot is GitHub Copilot's protocol for its camelCase events:
	// {"sessionId", "timestamp" (Unix milliseconds), "cwd", "toolName",
	// "toolArgs" (the arguments as a JSON string)…} on stdin; exit 0 with
	// optional JSON on stdout ({"permissionDecision": "deny",
	// "permissionDecisionReason": …}, "modifiedArgs", "modifiedResult",
	// "additionalContext"), after progress lines; exit 2 denies a
	// preToolUse call. A Copilot file's hooks speak it.
	Copilot
)

// String returns "claude", "ollm" or "copilot", as settings write it.
func (p Protocol) String() string {
	switch p {
	case Claude:
		return "claude"
	case OLLM:
		return "ollm"
	case Copilot:
		return "copilot"
	}
	return "Protocol(" + strconv.Itoa(int(p)) + ")"
}

// UnmarshalText reads a protocol as settings write it; "" is Claude.
func (p *Protocol) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "claude":
		*p = Claude
	case "ollm":
		*p = OLLM
	case "copilot":
		*p = Copilot
	default:
		return fmt.Errorf("unknown protocol %q (want claude, ollm or copilot)", b)
	}
	return nil
}

// FailureRule says what the failures of a hook ([command.FailureKind]) do to the
// call it guards.
type FailureRule uint8

const (
	// RuleDefault, the zero value, is the configuration's rule:
	// [RuleClosed] when [command.Config.FailClosed] is set, else [RuleAgent].
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

// UnmarshalText reads a rule as settings write it ("onFailure"):
// hookflow's "agent", "closed" or "open", or Claude Code's "block" (read
// as closed) or "continue" (read as agent); "" is RuleDefault. A near
// miss names the likely rule.
func (r *FailureRule) UnmarshalText(b []byte) error {
	s := string(b)
	for i, n := range ruleNames {
		if s == n {
			*r = FailureRule(i)
			return nil
		}
	}
	switch s { // Claude Code's words, read as the rule that does the same
	case "block":
		*r = RuleClosed
		return nil
	case "continue":
		*r = RuleAgent
		return nil
	}
	if near, ok := suggest.Closest(s, append(ruleNames[1:], "block", "continue")); ok {
		return fmt.Errorf("unknown failure rule %q (did you mean %q?)", s, near)
	}
	return fmt.Errorf("unknown failure rule %q (want agent, closed or open)", s)
}
