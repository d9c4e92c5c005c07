package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// GitHub Copilot's protocol ([settings.Copilot]), spoken by the hooks of
// a Copilot file: its camelCase input on stdin, its answer on stdout
// after progress lines, and its failure rule for preToolUse.

// copilotStdin encodes the event's input as Copilot sends it: sessionId,
// timestamp (Unix milliseconds), cwd, and per event toolName and
// toolArgs (the arguments as a JSON string), toolResult, error, source
// or prompt; and hookflow's own fields, as the other protocols have
// them.
func (h *hook) copilotStdin(d *eventData) ([]byte, error) {
	f := d.fields
	in := map[string]any{"timestamp": time.Now().UnixMilli()}
	for from, to := range map[string]string{"session_id": "sessionId", "cwd": "cwd", "source": "source",
		"prompt": "prompt", "error": "error", "flow": "flow", "stage": "stage", "server": "server",
		"principal": "principal", "request_id": "request_id"} {
		if v, ok := f[from]; ok {
			in[to] = v
		}
	}
	if name, ok := f["tool_name"]; ok {
		args := f["tool_input"]
		if tn, ok := h.tools.name(d.tool); ok {
			name, _ = json.Marshal(tn)
			args = h.tools.input(d.tool, args)
		}
		in["toolName"] = name
		in["toolArgs"] = string(args)
	}
	if h.Event == settings.PostToolUse {
		in["toolResult"] = map[string]string{"resultType": "success", "textResultForLlm": resultText(f["tool_response"])}
	}
	return json.Marshal(in)
}

// resultText is the text of a tool's result, as Copilot gives a hook its
// textResultForLlm: the text of its content, one part a line.
func resultText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &res)
	var b bytes.Buffer
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// decodeCopilot reads the answer of a hook of Copilot's protocol from its
// exit code and output. Exit 2 denies a preToolUse call (the reason is
// the JSON's, if any) and adds stdout to a postToolUseFailure's result;
// for the other events it is a warning. Another code is a failure, which
// for preToolUse blocks under the agents' rule (see copilotPolicy).
func (h *hook) decodeCopilot(c *flows.Context, res *sandbox.Result) (decision, error) {
	out := stripProgress(res.Stdout)
	switch {
	case res.ExitCode == 2 && h.Event == settings.PreToolUse:
		d, _ := copilotAnswer(h.Event, out)
		return decision{block: true, reason: cmpOr(d.reason, fmt.Sprintf("denied by command hook %q (exit 2)", h.Name))}, nil
	case res.ExitCode == 2 && h.Event == settings.PostToolUseFailure:
		return decision{context: []string{string(out)}}, nil
	case res.ExitCode == 2:
		h.p.logger().Warn("command hook: exit 2 is a warning for this Copilot event; the call goes on", "hook", h.id, "stderr", tail(res.Stderr, 1024))
		return decision{}, nil
	case res.ExitCode != 0:
		return decision{}, h.fail(c, FailExit, fmt.Sprintf("exited with code %d", res.ExitCode), res)
	}
	d, err := copilotAnswer(h.Event, out)
	if err != nil {
		return d, h.fail(c, FailBadOutput, err.Error(), res)
	}
	return d, nil
}

// stripProgress returns stdout without its progress lines: a line that
// is one JSON object whose "type" is "progress" is Copilot's status
// message, for display only.
func stripProgress(stdout []byte) []byte {
	lines := bytes.Split(stdout, []byte("\n"))
	kept := lines[:0]
	for _, l := range lines {
		var p struct {
			Type string `json:"type"`
		}
		if t := trimSpace(l); len(t) > 0 && t[0] == '{' && strictJSON(t, &p) == nil && p.Type == "progress" {
			continue
		}
		kept = append(kept, l)
	}
	return trimSpace(bytes.Join(kept, []byte("\n")))
}

// copilotOutput is the JSON a Copilot hook may print. Unknown fields are
// ignored, as Copilot does.
type copilotOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	ModifiedArgs             json.RawMessage `json:"modifiedArgs"`
	ModifiedResult           *struct {
		ResultType       string `json:"resultType"`
		TextResultForLlm string `json:"textResultForLlm"`
	} `json:"modifiedResult"`
	AdditionalContext *string `json:"additionalContext"`
}

// copilotAnswer reads a Copilot hook's JSON answer for event e: for
// preToolUse its permission decision and modifiedArgs; for postToolUse
// modifiedResult; additionalContext where the event takes it. A
// userPromptSubmitted hook's answer is dropped, as Copilot drops a
// command hook's.
func copilotAnswer(e settings.Event, out []byte) (decision, error) {
	var d decision
	if len(out) == 0 || e == settings.UserPromptSubmit {
		return d, nil
	}
	var o copilotOutput
	if err := strictJSON(out, &o); err != nil {
		return d, &badOutput{fmt.Sprintf("stdout is not Copilot's hook JSON: %v", err)}
	}
	if o.AdditionalContext != nil && *o.AdditionalContext != "" && e != settings.PreToolUse {
		d.context = []string{*o.AdditionalContext}
	}
	switch e {
	case settings.PreToolUse:
		switch o.PermissionDecision {
		case "", "allow":
		case "deny":
			d.block, d.reason = true, o.PermissionDecisionReason
		case "ask":
			d.ask, d.askReason = true, o.PermissionDecisionReason
		default:
			return d, &badOutput{fmt.Sprintf(`"permissionDecision" is %q; want allow, deny or ask`, o.PermissionDecision)}
		}
		if len(o.ModifiedArgs) > 0 && !isNull(o.ModifiedArgs) {
			if !isObject(o.ModifiedArgs) {
				return d, &badOutput{`"modifiedArgs" must be an object: the tool's new arguments`}
			}
			d.input = o.ModifiedArgs
		}
	case settings.PostToolUse:
		if r := o.ModifiedResult; r != nil {
			out, err := modifiedResult(r.ResultType, r.TextResultForLlm)
			if err != nil {
				return d, err
			}
			d.output = out
		}
	}
	return d, nil
}

// modifiedResult is a postToolUse's modifiedResult as a tool result: a
// text result, an isError one for resultType "failure".
func modifiedResult(typ, text string) (json.RawMessage, error) {
	res := map[string]any{"content": []map[string]string{{"type": "text", "text": text}}}
	switch typ {
	case "success":
	case "failure":
		res["isError"] = true
	default:
		return nil, &badOutput{fmt.Sprintf(`"modifiedResult.resultType" is %q; want success or failure`, typ)}
	}
	return json.Marshal(res)
}

// copilotFailClosed are the failures that deny a Copilot preToolUse
// command hook's call under the agents' rule: Copilot denies when such a
// hook crashes or exits with a code but 0, and lets a timed-out one
// through.
var copilotFailClosed = []FailureKind{FailStart, FailExit, FailSignal}

// policy returns what a failure of kind k does to h's call: its rule's
// policy, and for a Copilot preToolUse command hook under the agents'
// rule, Copilot's own.
func (h *hook) policy(k FailureKind) flows.FailurePolicy {
	if _, cmd := h.kind.(commandKind); cmd && h.rule == settings.RuleAgent && h.Protocol == settings.Copilot &&
		h.Event == settings.PreToolUse && slices.Contains(copilotFailClosed, k) {
		return flows.FailClosed
	}
	return rulePolicy(h.rule, k)
}
