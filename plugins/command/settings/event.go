package settings

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/stages"
)

// Event is a hook event, named as the agents' settings name it. Each event
// runs its hooks at one stage of one flow (see the command package's doc).
type Event uint8

// The events. Their names are the agents' (PreToolUse…); Gemini CLI's and
// OLLM's names of the same events are accepted as aliases in settings
// ([Event.UnmarshalText]). PreReadResource and PostReadResource are hookflow's own:
// no agent has resource events.
const (
	// PreToolUse runs in tools:call-tool beforeExecute, with the validated
	// arguments: it may block the call, rewrite its arguments, ask the user
	// or add context.
	PreToolUse Event = iota + 1
	// PostToolUse runs in tools:call-tool afterExecute, with the result:
	// it may replace it, add context (exit 2 and a block add their reason,
	// and the result stands, as in the agents) or withhold it with
	// "continue": false.
	PostToolUse
	// PostToolUseFailure runs in tools:call-tool onError when the tool ran
	// and failed (its execute step returned an error, or was cancelled or
	// timed out): it may add context to the isError result.
	PostToolUseFailure
	// SessionStart runs in session:initialize afterExecute: its context is
	// added to the server's instructions for that session.
	SessionStart
	// UserPromptSubmit runs in prompts:get-prompt beforeExecute (in MCP,
	// the user picks prompts): it may block the prompt or add a message.
	UserPromptSubmit
	// PreReadResource runs in resources:read-resource beforeExecute: it may
	// block the read.
	PreReadResource
	// PostReadResource runs in resources:read-resource afterExecute, with
	// the contents: it may withhold them.
	PostReadResource
)

// eventCount is the number of events; arrays indexed by Event have this
// length plus one.
const eventCount = 7

// eventInfo is one row of the event table.
type eventInfo struct {
	name  string
	flow  flows.ID
	stage stages.Stage
	// ollm is the event's name in OLLM's protocol, "" when OLLM has none.
	ollm string
	// matches says what a matcher is matched against.
	matches string
	// aliases are other agents' names of the event.
	aliases []string
	// context says where additionalContext goes; "" when nowhere.
	context string
	// exit2 says what exit code 2 (and decision "block") does.
	exit2 string
}

var eventTable = [eventCount + 1]eventInfo{
	PreToolUse: {name: "PreToolUse", flow: flows.ToolsCallTool, stage: stages.BeforeExecute, ollm: "before_tool",
		matches: "tool name", aliases: []string{"BeforeTool", "before_tool"},
		context: "appended to the call's result", exit2: "blocks the call"},
	PostToolUse: {name: "PostToolUse", flow: flows.ToolsCallTool, stage: stages.AfterExecute, ollm: "after_tool",
		matches: "tool name", aliases: []string{"AfterTool", "after_tool"},
		context: "appended to the call's result", exit2: "the result stands; the reason is appended to it for the model"},
	PostToolUseFailure: {name: "PostToolUseFailure", flow: flows.ToolsCallTool, stage: stages.OnError,
		matches: "tool name", context: "appended to the isError result", exit2: "stderr appended to the isError result"},
	SessionStart: {name: "SessionStart", flow: flows.SessionInitialize, stage: stages.AfterExecute, ollm: "session_start",
		matches: `source, always "startup"`, aliases: []string{"session_start"},
		context: "appended to the server's instructions", exit2: "does not block: logged"},
	UserPromptSubmit: {name: "UserPromptSubmit", flow: flows.PromptsGetPrompt, stage: stages.BeforeExecute,
		matches: "prompt name", context: "appended to the prompt's messages", exit2: "blocks the prompt"},
	PreReadResource: {name: "PreReadResource", flow: flows.ResourcesReadResource, stage: stages.BeforeExecute,
		matches: "resource URI", exit2: "blocks the read"},
	PostReadResource: {name: "PostReadResource", flow: flows.ResourcesReadResource, stage: stages.AfterExecute,
		matches: "resource URI", exit2: "withholds the contents"},
}

// Events returns every event, in the order hooks of different events are
// listed and registered.
func Events() []Event {
	out := make([]Event, eventCount)
	for i := range out {
		out[i] = Event(i + 1)
	}
	return out
}

// Valid reports whether e is one of the events.
func (e Event) Valid() bool { return e >= 1 && e <= eventCount }

// String returns the event's name, e.g. "PreToolUse".
func (e Event) String() string {
	if !e.Valid() {
		return "Event(" + strconv.Itoa(int(e)) + ")"
	}
	return eventTable[e].name
}

// Flow returns the flow whose runs the event's hooks run in.
func (e Event) Flow() flows.ID { return eventTable[e].flow }

// Stage returns the stage of [Event.Flow] that runs the event's hooks.
func (e Event) Stage() stages.Stage { return eventTable[e].stage }

// OLLMName returns the event's name in OLLM's protocol ("before_tool"…),
// or its own name when OLLM has none.
func (e Event) OLLMName() string {
	if n := eventTable[e].ollm; n != "" {
		return n
	}
	return e.String()
}

// unmapped are agents' events that have no counterpart in an MCP server:
// settings may hold them (they are the agent's business); they are skipped
// with a warning.
var unmapped = []string{
	// Claude Code and Codex
	"PermissionRequest", "PermissionDenied", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
	"PreCompact", "PostCompact", "SessionEnd", "Setup", "UserPromptExpansion", "PostToolBatch", "TaskCreated",
	"TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult", "WorktreeCreate", "WorktreeRemove",
	"ConfigChange", "InstructionsLoaded", "CwdChanged", "FileChanged", "Interrupt",
	// Gemini CLI
	"BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress",
	// OLLM
	"session_end", "before_agent", "after_agent", "before_model", "after_model", "before_tool_selection",
	"pre_compress", "post_compress", "notification",
}

// UnmarshalText sets e to the event a settings key names: an event's name
// or one of its aliases. An agent's event that an MCP server has no
// counterpart for sets e to 0 (not [Event.Valid]) and is no error: such
// keys are skipped. Any other key is an error, with the likely event when
// the key looks like a typo of one.
func (e *Event) UnmarshalText(text []byte) error {
	key := string(text)
	for _, ev := range Events() {
		if key == eventTable[ev].name || slices.Contains(eventTable[ev].aliases, key) {
			*e = ev
			return nil
		}
	}
	*e = 0
	if slices.Contains(unmapped, key) {
		return nil
	}
	if sug, ok := suggest.Closest(key, eventKeys()); ok {
		return fmt.Errorf("unknown event %q (did you mean %q?)", key, sug)
	}
	return fmt.Errorf("unknown event %q", key)
}

// eventKeys returns every name a settings key may have, for suggestions.
func eventKeys() []string {
	var keys []string
	for _, ev := range Events() {
		keys = append(keys, eventTable[ev].name)
		keys = append(keys, eventTable[ev].aliases...)
	}
	return append(keys, unmapped...)
}
