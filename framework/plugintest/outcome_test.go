package plugintest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/stages"
)

// guardPlugin blocks the calls whose arguments hold "secret", recording a
// decision, and answers those that hold "cached" itself.
func guardPlugin() framework.Plugin {
	return framework.NewPlugin("guard", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "block", Fn: func(c *flows.Context) error {
				if strings.Contains(string(c.Arguments()), "secret") {
					c.Decide(flows.Decision{By: "guard", Outcome: "blocked", Reason: "a secret"})
					return c.Abort(&flows.Error{Code: flows.CodeNotAllowed, Msg: "blocked"})
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "answer", Fn: func(c *flows.Context) error {
				if strings.Contains(string(c.Arguments()), "cached") {
					c.Respond(plugintest.Text{Text: "from the cache"})
				}
				return nil
			}},
		)
	})
}

func TestResultOutcome(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{guardPlugin()}})
	const block = "plugintest/plugin:guard/tools:call-tool/beforeExecute/block"
	const answer = "plugintest/plugin:guard/tools:call-tool/beforeExecute/answer"
	tests := []struct {
		name      string
		tool      string
		text      string
		ran       bool
		decidedBy string
		decisions []flows.Decision
		noRun     bool // no run at all: an unknown tool
	}{
		{name: "executed", tool: plugintest.ToolEcho, text: "hi", ran: true},
		{name: "failed", tool: plugintest.ToolFail, text: "x", ran: true},
		{name: "panicked", tool: plugintest.ToolPanic, text: "x", ran: true},
		{name: "blocked", tool: plugintest.ToolEcho, text: "a secret", decidedBy: block,
			decisions: []flows.Decision{{By: "guard", Outcome: "blocked", Reason: "a secret"}}},
		{name: "answered early", tool: plugintest.ToolEcho, text: "cached", decidedBy: answer},
		{name: "unknown tool", tool: "nope", noRun: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Call(tt.tool, plugintest.Text{Text: tt.text})
			if r.Ran != tt.ran || r.DecidedBy != tt.decidedBy {
				t.Errorf("%v: Ran %v, DecidedBy %q; want %v, %q", r, r.Ran, r.DecidedBy, tt.ran, tt.decidedBy)
			}
			if !slices.Equal(r.Decisions, tt.decisions) {
				t.Errorf("Decisions = %+v, want %+v", r.Decisions, tt.decisions)
			}
			if (r.RequestID == "") != tt.noRun {
				t.Errorf("RequestID = %q, want a run: %v", r.RequestID, !tt.noRun)
			}
		})
	}
}

// TestRunBlocked runs the shared checks, Blocked included, on a plugin
// that blocks what it should.
func TestRunBlocked(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin { return guardPlugin() }, &plugintest.RunOptions{
		Calls:   20,
		Blocked: []plugintest.Call{{Tool: plugintest.ToolEcho, Args: plugintest.Text{Text: "a secret"}}},
	})
}

// TestGuardBlocks is a blocking plugin's own test: the call fails without
// the tool running, decided by the plugin's hook, placed before execute.
func TestGuardBlocks(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{guardPlugin()}})
	const block = "plugintest/plugin:guard/tools:call-tool/beforeExecute/block"
	r := h.Call(plugintest.ToolEcho, plugintest.Text{Text: "a secret"})
	if r.Err == nil && !r.IsError() || r.Ran || r.DecidedBy != block {
		t.Errorf("%v: ran %v, decided by %q; want blocked by %s", r, r.Ran, r.DecidedBy, block)
	}
	want := plugintest.PlanHook{Stage: stages.BeforeExecute, Priority: 0, ID: block}
	if plan := h.Plan(flows.ToolsCallTool, plugintest.ToolEcho); !slices.Contains(plan, want) {
		t.Errorf("plan %+v, want it to hold %+v", plan, want)
	}
}
