package command_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// The audit plugin's record of a call names the command hook: the one
// that blocked it (decided_by), or the fail-open ones that failed
// (failed_open).
func TestAuditRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(settings.Settings{"PreToolUse": {
		{Matcher: "echo", Hooks: []settings.Hook{{Name: "flaky", OnFailure: settings.RuleOpen, Command: f.script("flaky.sh", bash+"echo down >&2\nexit 1\n")}}},
		{Matcher: "fail", Hooks: []settings.Hook{{Name: "broken", OnFailure: settings.RuleClosed, Command: f.script("broken.sh", bash+"echo '{oops'\n")}}},
	}})
	f.trust(cfg)
	events := &records{}
	aud := audit.New(audit.Config{Handler: events, Flows: []flows.ID{flows.ToolsCallTool}})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud, command.New(cfg)}})
	if r := h.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	h.Call(plugintest.ToolFail, echoHi).WantToolError(`command hook "broken" failed (bad_output)`)
	if err := aud.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	open := events.find(`entity="echo"`, `outcome="ok"`)
	if len(open) != 1 || !strings.Contains(open[0], "tools:call-tool/beforeExecute/flaky") || !strings.Contains(open[0], `failed (exit): exited with code 1`) {
		t.Errorf("fail-open failure not in the audit record: %q", events.recs)
	}
	closed := events.find(`entity="fail"`, `outcome="blocked"`, `decided_by="plugintest/plugin:command/tools:call-tool/beforeExecute/broken"`)
	if len(closed) != 1 {
		t.Errorf("fail-closed failure not in the audit record: %q", events.recs)
	}
}
