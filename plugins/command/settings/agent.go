package settings

import (
	"fmt"
	"slices"

	"github.com/hookflow/hookflow/flows"
)

// Agent is the coding agent whose settings format a file is written in: it
// decides the unit of timeouts and how matchers match (see the command
// package's doc).
type Agent uint8

// The agents.
const (
	// AgentAuto tells the agent from the file: its directory (.claude,
	// .codex, .gemini, .github/hooks), else its shape (a top-level
	// "version" is GitHub Copilot's; Gemini CLI's events, BeforeTool…),
	// else Claude Code.
	AgentAuto Agent = iota
	// AgentClaude is Claude Code: timeouts in seconds; a matcher of
	// letters, digits, '_' and '|' is a name or a '|'-separated list of
	// names, anything else a regular expression.
	AgentClaude
	// AgentCodex is Codex, whose hooks.json has Claude Code's format.
	AgentCodex
	// AgentGemini is Gemini CLI: timeouts in milliseconds; a tool matcher
	// is a regular expression, a SessionStart matcher an exact string.
	AgentGemini
	// AgentCopilot is GitHub Copilot (its CLI and cloud agent): a
	// .github/hooks/*.json file of "version": 1, whose events
	// (preToolUse…) hold hook entries without groups, each with its own
	// optional matcher, a regular expression that must match the whole
	// tool name; timeouts in seconds (timeoutSec).
	AgentCopilot
)

var agentNames = [...]string{AgentAuto: "auto", AgentClaude: "claude", AgentCodex: "codex", AgentGemini: "gemini", AgentCopilot: "copilot"}

// String returns "auto", "claude", "codex", "gemini" or "copilot".
func (a Agent) String() string {
	if int(a) < len(agentNames) {
		return agentNames[a]
	}
	return fmt.Sprintf("Agent(%d)", uint8(a))
}

// MarshalText returns the agent's name.
func (a Agent) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads "claude", "codex", "gemini", "copilot" or "auto"
// ("" too).
func (a *Agent) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" {
		*a = AgentAuto
		return nil
	}
	if i := slices.Index(agentNames[:], s); i >= 0 {
		*a = Agent(i)
		return nil
	}
	return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("unknown agent %q: want claude, codex, gemini, copilot or auto", s)}
}
