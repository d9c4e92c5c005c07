package agent

import (
	"fmt"

	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/plugins/declared"
)

// Agent is a coding agent whose command hooks can carry declarations.
type Agent uint8

// The agents. The zero value is not an agent.
const (
	// Claude is Claude Code (settings.json "hooks").
	Claude Agent = iota + 1
	// Codex is the Codex CLI (hooks.json).
	Codex
	// Gemini is the Gemini CLI (settings.json "hooks").
	Gemini
)

var agentNames = [...]string{Claude: "claude", Codex: "codex", Gemini: "gemini"}

// Names returns the agents' names, as --agent takes them.
func Names() []string { return agentNames[1:] }

// String returns the agent's name, e.g. "claude".
func (a Agent) String() string {
	if a >= Claude && a <= Gemini {
		return agentNames[a]
	}
	return fmt.Sprintf("Agent(%d)", uint8(a))
}

// Parse returns the agent named s; the error of a near miss names the
// likely agent.
func Parse(s string) (Agent, error) {
	for a := Claude; a <= Gemini; a++ {
		if agentNames[a] == s {
			return a, nil
		}
	}
	return 0, suggest.Unknown("agent", "agents", s, Names())
}

// channel is how an agent hook's output reaches the model.
type channel uint8

const (
	// additionalContext: hookSpecificOutput.additionalContext, added to
	// the model's context.
	additionalContext channel = iota + 1
	// stopReason: the hook refuses the agent's stop once; the reason is
	// what the model reads before its next turn (Claude's and Codex's
	// decision "block", Gemini's "deny").
	stopReason
)

// binding ties a declared event to the agent hook event that carries it.
type binding struct {
	event   declared.Event
	hook    string
	channel channel
	tool    bool // the hook event has tool_name and a tool matcher
	// since is the oldest version of the agent that reads the channel at
	// this hook event; "" when every version that has the event does.
	since string
}

// bindings lists, per agent, the declared events its hooks can show to the
// model. session_end is in none: no agent's session-end hook reaches the
// model. Gemini's BeforeTool has no context channel, so pre_tool_use is
// not Gemini's.
// Codex took PreToolUse additionalContext from 0.129.0 on (openai/codex
// pull request 20692, in that release's notes); older versions report
// the hook as failed ("returned unsupported additionalContext") and run
// the tool.
var bindings = [...][]binding{
	Claude: {
		{declared.SessionStart, "SessionStart", additionalContext, false, ""},
		{declared.PreRequest, "UserPromptSubmit", additionalContext, false, ""},
		{declared.PreToolUse, "PreToolUse", additionalContext, true, ""},
		{declared.PostToolUse, "PostToolUse", additionalContext, true, ""},
		{declared.PostRequest, "Stop", stopReason, false, ""},
	},
	Codex: {
		{declared.SessionStart, "SessionStart", additionalContext, false, ""},
		{declared.PreRequest, "UserPromptSubmit", additionalContext, false, ""},
		{declared.PreToolUse, "PreToolUse", additionalContext, true, "0.129.0"},
		{declared.PostToolUse, "PostToolUse", additionalContext, true, ""},
		{declared.PostRequest, "Stop", stopReason, false, ""},
	},
	Gemini: {
		{declared.SessionStart, "SessionStart", additionalContext, false, ""},
		{declared.PreRequest, "BeforeAgent", additionalContext, false, ""},
		{declared.PostToolUse, "AfterTool", additionalContext, true, ""},
		{declared.PostRequest, "AfterAgent", stopReason, false, ""},
	},
}

func (a Agent) bindings() []binding {
	if a >= Claude && a <= Gemini {
		return bindings[a]
	}
	return nil
}

// Events returns the declared events the agent's hooks can carry to the
// model, in the order of [declared.Events].
func (a Agent) Events() []declared.Event {
	var out []declared.Event
	for _, e := range declared.Events() {
		if _, ok := a.binding(e); ok {
			out = append(out, e)
		}
	}
	return out
}

func (a Agent) binding(e declared.Event) (binding, bool) {
	for _, b := range a.bindings() {
		if b.event == e {
			return b, true
		}
	}
	return binding{}, false
}

// HookEvent returns the name of the agent's hook event that carries e,
// e.g. "PostToolUse"; ok is false when none does.
func (a Agent) HookEvent(e declared.Event) (name string, ok bool) {
	b, ok := a.binding(e)
	return b.hook, ok
}

// Since returns the oldest version of the agent whose hook carrying e
// shows emit's output to the model, "" when every version with that hook
// does (or none carries e). Codex's PreToolUse gives "0.129.0": before
// it, Codex rejects PreToolUse additionalContext, reports the hook as
// failed and runs the tool anyway.
func (a Agent) Since(e declared.Event) string {
	b, _ := a.binding(e)
	return b.since
}

// Event returns the declared event that the agent's hook event named
// hookEvent carries.
func (a Agent) Event(hookEvent string) (declared.Event, bool) {
	for _, b := range a.bindings() {
		if b.hook == hookEvent {
			return b.event, true
		}
	}
	return 0, false
}
