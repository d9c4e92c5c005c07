package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/plugins/declared/client"
)

// Output returns what the hook prints on standard output to put text in
// front of the model at in's event, on the channel the agent reads:
//
//   - SessionStart, UserPromptSubmit / BeforeAgent, PreToolUse,
//     PostToolUse / AfterTool: {"hookSpecificOutput": {"hookEventName": …,
//     "additionalContext": text}}. Plain standard output would not do: for
//     most of these events the agents show it to the user only.
//   - Stop (Claude Code, Codex) and AfterAgent (Gemini CLI): the only way to
//     reach the model after its turn is to refuse the stop once, with text
//     as the reason ({"decision": "block"} or "deny"); the model reads it
//     and takes one more turn. While in.StopHookActive (the agent is already
//     in such a turn) nothing is sent, so a declaration never loops.
//
// Empty text, or none, gives {}: the hook has nothing to say.
func (a Agent) Output(in *Input, text string) ([]byte, error) {
	b, ok := a.bindingOf(in.HookEventName)
	if !ok {
		return nil, fmt.Errorf("%s hook event %q carries no declared event", a, in.HookEventName)
	}
	if text == "" || b.channel == stopReason && in.StopHookActive {
		return []byte("{}"), nil
	}
	switch b.channel {
	case stopReason:
		decision := "block"
		if a == Gemini {
			decision = "deny"
		}
		return json.Marshal(struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{decision, text})
	default:
		type specific struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		}
		return json.Marshal(struct {
			HookSpecificOutput specific `json:"hookSpecificOutput"`
		}{specific{b.hook, text}})
	}
}

// Render joins injections into the text of one hook output: each on its
// own paragraph, labelled with its server and the priority it fires with,
// which the agent has no other way to learn, e.g.
// "[memory · important] Load the context of the last session.".
func Render(injs []client.Injection) string {
	var b strings.Builder
	for i, in := range injs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s · %s] %s", in.Server, in.Priority, in.Text)
	}
	return b.String()
}
