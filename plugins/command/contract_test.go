package command_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// A contract cell: one hook of one event, what its script answers, and
// what the client then sees.
type cell struct {
	name     string
	event    string
	protocol settings.Protocol
	policy   settings.FailureRule
	script   string
	tool     string
	args     any
	// wantErr is a substring of the isError text; "" wants a success.
	wantErr string
	// wantTexts are the result's text contents, exactly (when set).
	wantTexts []string
	// decided: the run's DecidedBy names the hook.
	decided bool
	// failure is the kind of the failure recorded and audited, if any.
	failure string
	// logged is a substring of a record the plugin logged, if set.
	logged string
}

const bash = "#!/bin/bash\n"

// python3 starts a Python script. The system's python3 is preferred: a
// version manager's shim on PATH can take a second to start.
var python3 = "#!" + pythonPath() + "\nimport json, sys\n"

func pythonPath() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "/usr/bin/env python3"
	}
	return p
}

var echoHi = plugintest.Text{Text: "hi"}

func TestContract(t *testing.T) {
	cells := []cell{
		// Exit 0, stdout as JSON, field by field.
		{name: "exit 0 without output runs the call", event: "PreToolUse",
			script: bash + "cat >/dev/null\n", wantTexts: []string{plugintest.EchoText("hi")}},
		{name: "permissionDecision deny blocks with its reason", event: "PreToolUse",
			script:  bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no echo today"}}'`,
			wantErr: "no echo today", decided: true},
		{name: "permissionDecision allow runs the call", event: "PreToolUse",
			script:    bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
			wantTexts: []string{plugintest.EchoText("hi")}},
		{name: "decision block blocks with its reason", event: "PreToolUse",
			script:  python3 + `json.load(sys.stdin); print(json.dumps({"decision": "block", "reason": "blocked by policy"}))`,
			wantErr: "blocked by policy", decided: true},
		{name: "continue false stops with stopReason", event: "PreToolUse",
			script:  bash + `echo '{"continue":false,"stopReason":"stop right there"}'`,
			wantErr: "stop right there", decided: true},
		{name: "updatedInput rewrites the arguments", event: "PreToolUse", tool: "delete", args: DeleteIn{Path: "/tmp/x", Force: true},
			script: python3 + `i = json.load(sys.stdin)["tool_input"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": "/sandbox" + i["path"]}}}))`,
			wantTexts: []string{"deleted /sandbox/tmp/x force=false"}},
		{name: "updatedInput is validated again", event: "PreToolUse", tool: "delete", args: DeleteIn{Path: "/tmp/x"},
			script:  bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"path":5}}}'`,
			wantErr: `rewrote the arguments, and they do not fit the tool's input schema`, decided: true},
		{name: "additionalContext is added to the result", event: "PreToolUse",
			script:    bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"remember: be nice"}}'`,
			wantTexts: []string{plugintest.EchoText("hi"), "remember: be nice"}},
		{name: "plain stdout is ignored for tool events", event: "PreToolUse",
			script: bash + "echo checked\n", wantTexts: []string{plugintest.EchoText("hi")}},
		{name: "systemMessage is logged and does not change the call", event: "PreToolUse",
			script: bash + `echo '{"systemMessage":"heads up"}'`, wantTexts: []string{plugintest.EchoText("hi")},
			logged: `command hook message hook="plugintest/plugin:command/tools:call-tool/beforeExecute/hook" message="heads up"`},
		// Exit 2.
		{name: "exit 2 blocks with stderr as the reason", event: "PreToolUse",
			script:  bash + "echo 'echo is not allowed here' >&2\nexit 2\n",
			wantErr: "echo is not allowed here", decided: true},
		// Other exit codes, under both policies.
		{name: "exit 1 fails closed", event: "PreToolUse", policy: settings.RuleClosed, script: bash + "echo oops >&2\nexit 1\n",
			wantErr: `command hook "hook" failed (exit): exited with code 1 (only 2 blocks): oops`, decided: true, failure: "exit"},
		{name: "exit 1 fails open", event: "PreToolUse", policy: settings.RuleOpen, script: bash + "exit 1\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "exit"},
		{name: "a crash fails closed", event: "PreToolUse", policy: settings.RuleClosed, script: bash + "kill -SEGV $$\n",
			wantErr: "killed by signal segmentation fault", decided: true, failure: "signal"},
		{name: "a crash fails open", event: "PreToolUse", policy: settings.RuleOpen, script: bash + "kill -SEGV $$\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "signal"},
		// The agents' rule, the default: only a decision blocks.
		{name: "exit 1 under the agents' rule lets the call go on", event: "PreToolUse", script: bash + "echo oops >&2\nexit 1\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "exit"},
		{name: "exit 127 under the agents' rule lets the call go on", event: "PreToolUse", script: bash + "exit 127\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "exit"},
		{name: "a crash under the agents' rule lets the call go on", event: "PreToolUse", script: bash + "kill -SEGV $$\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "signal"},
		{name: "bad JSON under the agents' rule lets the call go on", event: "PreToolUse", script: bash + "echo '{nope'\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "bad_output"},
		{name: "exit 2 blocks under the agents' rule", event: "PreToolUse", script: bash + "echo 'no' >&2\nexit 2\n",
			wantErr: "no", decided: true},
		// A top-level "decision": "ask" is not the agents' way to ask.
		{name: "legacy decision ask is invalid output and the call goes on", event: "PreToolUse",
			script:    bash + `echo '{"decision":"ask","reason":"sure?"}'`,
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "bad_output"},
		{name: "legacy decision ask blocks under failClosed", event: "PreToolUse", policy: settings.RuleClosed,
			script:  bash + `echo '{"decision":"ask","reason":"sure?"}'`,
			wantErr: `"decision": "ask" is not a top-level decision`, decided: true, failure: "bad_output"},
		// Bad output.
		{name: "bad JSON fails closed", event: "PreToolUse", policy: settings.RuleClosed, script: bash + "echo '{nope'\n",
			wantErr: "failed (bad_output): stdout is not the hook JSON", decided: true, failure: "bad_output"},
		{name: "bad JSON fails open", event: "PreToolUse", policy: settings.RuleOpen, script: bash + "echo '{nope'\n",
			wantTexts: []string{plugintest.EchoText("hi")}, failure: "bad_output"},
		{name: "a field of the wrong type is bad output", event: "PreToolUse", policy: settings.RuleClosed, script: bash + `echo '{"continue":"no"}'`,
			wantErr: "failed (bad_output)", decided: true, failure: "bad_output"},
		{name: "an unknown permissionDecision is bad output", event: "PreToolUse", policy: settings.RuleClosed,
			script:  bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}'`,
			wantErr: `"permissionDecision" is "maybe"`, decided: true, failure: "bad_output"},
		{name: "updatedInput that is not an object is bad output", event: "PreToolUse", policy: settings.RuleClosed,
			script:  bash + `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":"rm -rf /"}}'`,
			wantErr: `"updatedInput" must be an object`, decided: true, failure: "bad_output"},
		// PostToolUse.
		{name: "PostToolUse additionalContext is added", event: "PostToolUse",
			script: python3 + `r = json.load(sys.stdin)["tool_response"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "saw " + r["structuredContent"]["text"]}}))`,
			wantTexts: []string{plugintest.EchoText("hi"), "saw hi"}},
		{name: "PostToolUse exit 2 keeps the result and feeds stderr to the model", event: "PostToolUse",
			script:    bash + "echo 'run the linter again' >&2\nexit 2\n",
			wantTexts: []string{plugintest.EchoText("hi"), "run the linter again"}},
		{name: "PostToolUse decision block keeps the result and adds its reason", event: "PostToolUse",
			script:    bash + `echo '{"decision":"block","reason":"style: tabs"}'`,
			wantTexts: []string{plugintest.EchoText("hi"), "style: tabs"}},
		{name: "PostToolUse continue false withholds the result", event: "PostToolUse",
			script:  bash + `echo '{"continue":false,"stopReason":"the result holds a secret"}'`,
			wantErr: "the result holds a secret", decided: true},
		{name: "PostToolUse updatedToolOutput replaces the result", event: "PostToolUse",
			script:    bash + `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"content":[{"type":"text","text":"replaced"}],"structuredContent":{"text":"replaced"}}}}'`,
			wantTexts: []string{"replaced"}},
		// PostToolUseFailure.
		{name: "PostToolUseFailure adds context to the isError result", event: "PostToolUseFailure", tool: plugintest.ToolFail,
			script: python3 + `i = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "hint for " + i["error"]}}))`,
			wantErr: "fail: hi", wantTexts: []string{"fail: hi", "hint for fail: hi"}},
		{name: "PostToolUseFailure exit 2 gives stderr to the model", event: "PostToolUseFailure", tool: plugintest.ToolFail,
			script: bash + "echo 'try another input' >&2\nexit 2\n", wantErr: "fail: hi", wantTexts: []string{"fail: hi", "try another input"}},
		// OLLM's protocol.
		{name: "OLLM continue true runs the call", event: "PreToolUse", protocol: settings.OLLM,
			script: bash + `echo '{"continue":true}'`, wantTexts: []string{plugintest.EchoText("hi")}},
		{name: "OLLM continue false stops with systemMessage", event: "PreToolUse", protocol: settings.OLLM,
			script:  python3 + `i = json.load(sys.stdin); assert i["event"] == "before_tool"; print(json.dumps({"continue": False, "systemMessage": "stopped: " + i["data"]["tool_name"]}))`,
			wantErr: "stopped: echo", decided: true},
		{name: "OLLM error is a failure", event: "PreToolUse", policy: settings.RuleClosed, protocol: settings.OLLM,
			script:  bash + `echo '{"continue":true,"error":"policy server down"}'`,
			wantErr: "failed (hook_error): policy server down", decided: true, failure: "hook_error"},
		{name: "OLLM error fails open", event: "PreToolUse", protocol: settings.OLLM, policy: settings.RuleOpen,
			script: bash + `echo '{"continue":true,"error":"policy server down"}'`, wantTexts: []string{plugintest.EchoText("hi")}, failure: "hook_error"},
		{name: "OLLM plain text is bad output", event: "PreToolUse", policy: settings.RuleClosed, protocol: settings.OLLM,
			script: bash + "echo ok\n", wantErr: "failed (bad_output)", decided: true, failure: "bad_output"},
		{name: "OLLM exit 2 is a failure, not a block", event: "PreToolUse", policy: settings.RuleClosed, protocol: settings.OLLM,
			script: bash + "exit 2\n", wantErr: "failed (exit): exited with code 2", decided: true, failure: "exit"},
	}
	for _, tc := range cells {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			script := f.script("hook", tc.script)
			cfg := f.config(hooksFor(tc.event, "", settings.Hook{Command: script, Protocol: tc.protocol, OnFailure: tc.policy}))
			s := f.serve(cfg)
			tool, args := tc.tool, tc.args
			if tool == "" {
				tool, args = plugintest.ToolEcho, echoHi
			}
			if args == nil {
				args = echoHi
			}
			r := s.Call(tool, args)
			if r.Err != nil {
				t.Fatalf("protocol error: %v", r.Err)
			}
			if tc.wantErr != "" {
				r.WantToolError(tc.wantErr)
			} else if r.IsError() {
				t.Fatalf("call failed: %s", r.Text())
			}
			if tc.wantTexts != nil && !slices.Equal(texts(r.Res), tc.wantTexts) {
				t.Errorf("result texts %q, want %q", texts(r.Res), tc.wantTexts)
			}
			decided := s.lastDecided()
			if tc.decided != strings.HasSuffix(decided, "/"+cfgStage(tc.event)+"/hook") {
				t.Errorf("DecidedBy %q, want the hook's ID: %v", decided, tc.decided)
			}
			if tc.logged != "" && len(f.log.find(tc.logged)) != 1 {
				t.Errorf("not logged: %q in %q", tc.logged, f.log.recs)
			}
			got := f.audit.find("command hook failure", `name="hook"`)
			switch {
			case tc.failure == "" && len(got) > 0:
				t.Errorf("unexpected failure audited: %q", got)
			case tc.failure != "" && len(f.audit.find("command hook failure", `kind="`+tc.failure+`"`, `name="hook"`, `script="`+script+`"`)) != 1:
				t.Errorf("failure %q not audited once with the hook's name: %q", tc.failure, f.audit.recs)
			case tc.failure != "" && len(f.log.find("command hook failed", `kind="`+tc.failure+`"`)) != 1:
				t.Errorf("failure %q not logged: %q", tc.failure, f.log.recs)
			}
		})
	}
}

// cfgStage is the flow and stage in the hook ID of an event's hooks.
func cfgStage(event string) string {
	var e settings.Event
	_ = e.UnmarshalText([]byte(event))
	return e.Flow().String() + "/" + e.Stage().String()
}
