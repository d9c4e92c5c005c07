package plugintest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

func TestPlan(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{
		Plugins: []framework.Plugin{guardPlugin()},
		Apps: []plugintest.AppOptions{{Name: "a", Plugins: []framework.Plugin{framework.NewPlugin("audit", func(p *framework.PluginContext) error {
			return p.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Priority: priority.Audit, Name: "log", Fn: func(*flows.Context) error { return nil }})
		})}}},
	})
	// The plugins' hooks, without the harness's own.
	mine := func(ps []plugintest.PlanHook) []plugintest.PlanHook {
		return slices.DeleteFunc(ps, func(p plugintest.PlanHook) bool { return !strings.Contains(p.ID, "/plugin:") })
	}
	tests := []struct {
		tool string
		want []plugintest.PlanHook
	}{
		{tool: plugintest.ToolEcho, want: []plugintest.PlanHook{
			{Stage: stages.BeforeExecute, ID: "plugintest/plugin:guard/tools:call-tool/beforeExecute/block"},
			{Stage: stages.BeforeExecute, ID: "plugintest/plugin:guard/tools:call-tool/beforeExecute/answer"},
		}},
		{tool: "a_" + plugintest.ToolEcho, want: []plugintest.PlanHook{
			{Stage: stages.BeforeExecute, ID: "plugintest/plugin:guard/tools:call-tool/beforeExecute/block"},
			{Stage: stages.BeforeExecute, ID: "plugintest/plugin:guard/tools:call-tool/beforeExecute/answer"},
			{Stage: stages.Finally, Priority: priority.Audit, ID: "plugintest/app:a/plugin:audit/tools:call-tool/finally/log"},
		}},
	}
	for _, tt := range tests {
		if got := mine(h.Plan(flows.ToolsCallTool, tt.tool)); !slices.Equal(got, tt.want) {
			t.Errorf("Plan(%s) = %+v, want %+v", tt.tool, got, tt.want)
		}
	}
	if got := h.Plan(flows.ToolsListTools, ""); len(got) != 0 {
		t.Errorf("Plan(tools:list-tools) = %+v, want no hooks", got)
	}
}
