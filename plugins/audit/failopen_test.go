package audit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/stages"
)

// TestFailedOpen checks that the failures of fail-open hooks reach the
// event, by hook, code and reason, while the outcome stays the call's.
func TestFailedOpen(t *testing.T) {
	out := &lines{}
	aud := newAudit(t, out, audit.Config{Flows: []flows.ID{flows.ToolsCallTool}, MaxTextBytes: 16})
	flaky := framework.NewPlugin("flaky", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "panics", OnFailure: flows.FailOpen,
				Fn: func(c *flows.Context) error { panic("secret value") }},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "stalls", OnFailure: flows.FailOpen, Timeout: 10 * time.Millisecond,
				Fn: func(c *flows.Context) error { <-c.Context().Done(); return c.Context().Err() }},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "errs", OnFailure: flows.FailOpen,
				Fn: func(c *flows.Context) error { return errors.New("a reason longer than sixteen bytes") }},
		)
	})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud, flaky}})
	s := h.Connect(nil)
	if res := s.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}); res.Err != nil || res.IsError() {
		t.Fatalf("call: %v %v", res.Err, res.Res)
	}
	flush(t, aud)
	evs := out.events(t)
	if len(evs) != 1 {
		t.Fatalf("got %d events, want 1", len(evs))
	}
	ev := evs[0]
	const prefix = "plugintest/plugin:flaky/tools:call-tool/"
	want := []audit.HookFailure{
		{Hook: prefix + "beforeExecute/panics", Code: "panic", Error: "internal error"},
		{Hook: prefix + "beforeExecute/stalls", Code: "timeout", Error: "hook timed ou…"},
		{Hook: prefix + "afterExecute/errs", Code: "aborted", Error: "a reason long…"},
	}
	if ev.Outcome != audit.OK || ev.DecidedBy != "" {
		t.Errorf("outcome %s decided by %q, want ok and nobody", ev.Outcome, ev.DecidedBy)
	}
	if len(ev.FailedOpen) != len(want) {
		t.Fatalf("failed_open = %+v, want %+v", ev.FailedOpen, want)
	}
	for i := range want {
		if ev.FailedOpen[i] != want[i] {
			t.Errorf("failed_open[%d] = %+v, want %+v", i, ev.FailedOpen[i], want[i])
		}
	}
	if len(ev.Truncated) != 1 || ev.Truncated[0] != "failed_open" {
		t.Errorf("truncated = %v, want [failed_open]", ev.Truncated)
	}
}
