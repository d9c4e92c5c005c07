package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// decision is what a hook's answer asks for, whatever its protocol.
type decision struct {
	// stop: continue:false, with stopReason.
	stop       bool
	stopReason string
	// block: exit 2, decision "block"/"deny", or permissionDecision
	// "deny", with reason.
	block  bool
	reason string
	// ask: permissionDecision "ask" (or "defer"), with askReason.
	ask       bool
	askReason string
	// input replaces the arguments (updatedInput; OLLM data.tool_input).
	input json.RawMessage
	// context is text for the model (additionalContext, plain stdout of
	// the events that take it, exit-2 stderr where it informs).
	context []string
	// output replaces a tool's result (updatedToolOutput).
	output json.RawMessage
	// systemMessage is for the user.
	systemMessage string
	// data is an OLLM hook's data, merged into the next hooks' input.
	data map[string]json.RawMessage
	// asked: a prompt hook's question went out as an input-required
	// result; the call comes back with the answer.
	asked bool
}

// badOutput is an answer that breaks the hook's protocol.
type badOutput struct{ msg string }

func (b *badOutput) Error() string { return b.msg }

// claudeOutput is the JSON a hook of the agents' contract may print on
// exit 0. Unknown fields are ignored, as the agents do.
type claudeOutput struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
		UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
	} `json:"hookSpecificOutput"`
}

// decodeClaude reads the answer of a hook of the agents' contract from its
// exit code and output: 0 reads stdout (JSON, or plain text that the
// context events take as context), 2 blocks with stderr as the reason;
// other codes are failures, decided by the caller.
func decodeClaude(e settings.Event, code int, stdout, stderr []byte) (decision, error) {
	var d decision
	if code == 2 {
		d.block = true
		d.reason = string(trimSpace(stderr))
		return d, nil
	}
	out := trimSpace(stdout)
	if len(out) == 0 {
		return d, nil
	}
	if out[0] != '{' {
		if e == settings.SessionStart || e == settings.UserPromptSubmit {
			d.context = []string{string(out)}
		}
		return d, nil
	}
	var o claudeOutput
	if err := strictJSON(out, &o); err != nil {
		return d, &badOutput{fmt.Sprintf("stdout is not the hook JSON: %v", err)}
	}
	if o.Continue != nil && !*o.Continue {
		d.stop, d.stopReason = true, o.StopReason
	}
	d.systemMessage = o.SystemMessage
	switch o.Decision {
	case "", "approve", "allow":
	case "block", "deny":
		d.block, d.reason = true, o.Reason
	case "ask":
		// Claude Code's top-level decision is approve or block; "ask" is
		// hookSpecificOutput.permissionDecision's. The agent takes the
		// output as invalid and goes on; so does hookflow under the
		// agents' rule (a bad_output failure), and no question is asked.
		return d, &badOutput{`"decision": "ask" is not a top-level decision (the agents ask with hookSpecificOutput.permissionDecision "ask")`}
	default:
		return d, &badOutput{fmt.Sprintf(`"decision" is %q; want "block" (or "approve")`, o.Decision)}
	}
	if hs := o.HookSpecificOutput; hs != nil {
		if hs.HookEventName != "" && hs.HookEventName != e.String() {
			if ev := eventOf(hs.HookEventName); ev != e {
				return d, &badOutput{fmt.Sprintf(`"hookSpecificOutput.hookEventName" is %q, but the hook ran for %s`, hs.HookEventName, e)}
			}
		}
		switch hs.PermissionDecision {
		case "", "allow":
		case "deny":
			d.block, d.reason = true, hs.PermissionDecisionReason
		case "ask", "defer":
			d.ask, d.askReason = true, hs.PermissionDecisionReason
		default:
			return d, &badOutput{fmt.Sprintf(`"permissionDecision" is %q; want allow, deny, ask or defer`, hs.PermissionDecision)}
		}
		if len(hs.UpdatedInput) > 0 && !isNull(hs.UpdatedInput) {
			if !isObject(hs.UpdatedInput) {
				return d, &badOutput{`"updatedInput" must be an object: the tool's new arguments`}
			}
			d.input = hs.UpdatedInput
		}
		if hs.AdditionalContext != "" {
			d.context = append(d.context, hs.AdditionalContext)
		}
		for _, o := range []json.RawMessage{hs.UpdatedToolOutput, hs.UpdatedMCPToolOutput} {
			if len(o) > 0 && !isNull(o) {
				d.output = o
			}
		}
	}
	return d, nil
}

// ollmOutput is the answer of a hook of OLLM's protocol.
type ollmOutput struct {
	Continue      *bool           `json:"continue"`
	SystemMessage string          `json:"systemMessage"`
	Data          json.RawMessage `json:"data"`
	Error         string          `json:"error"`
}

// decodeOLLM reads the answer of a hook of OLLM's protocol, which must be
// a JSON object on stdout. An "error" is returned as the hook's error.
func decodeOLLM(stdout []byte) (decision, string, error) {
	var d decision
	out := trimSpace(stdout)
	if len(out) == 0 || out[0] != '{' {
		return d, "", &badOutput{`stdout is not the OLLM answer, a JSON object {"continue": …}`}
	}
	var o ollmOutput
	if err := strictJSON(out, &o); err != nil {
		return d, "", &badOutput{fmt.Sprintf("stdout is not the OLLM answer: %v", err)}
	}
	if len(o.Data) > 0 && !isNull(o.Data) {
		if err := json.Unmarshal(o.Data, &d.data); err != nil {
			return d, "", &badOutput{`"data" must be an object`}
		}
	}
	d.systemMessage = o.SystemMessage
	if o.Continue != nil && !*o.Continue {
		d.stop = true
		d.stopReason = o.SystemMessage
	}
	return d, o.Error, nil
}

// strictJSON decodes one JSON value into v and refuses trailing data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON object")
	}
	return nil
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }

func isObject(b json.RawMessage) bool {
	return strings.HasPrefix(string(bytes.TrimSpace(b)), "{")
}
