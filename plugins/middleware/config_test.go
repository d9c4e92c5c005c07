package middleware_test

import (
	"math"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/middleware"
)

func TestConfigValidate(t *testing.T) {
	noop := func(*flows.Context) error { return nil }
	tests := []struct {
		name string
		cfg  middleware.Config
		want []plugintest.FieldErr
	}{
		{"zero", middleware.Config{}, nil},
		{"valid", middleware.Config{Name: "civic", Priority: 10, AsyncTimeout: 5 * time.Second, Chain: []middleware.Middleware{
			{Name: "a", Flows: []middleware.Handlers{{Flow: flows.ToolsCallTool, Result: noop}}},
			{Name: "b", Flows: []middleware.Handlers{{Flow: flows.ToolsCallTool}, {Flow: flows.PromptsGetPrompt}}},
		}}, nil},
		{"name with a slash", middleware.Config{Name: "a/b"},
			[]plugintest.FieldErr{{"name", `"a/b" must not hold '/' or white space: the name is part of the plugin's hook IDs`}}},
		{"name with a space", middleware.Config{Name: "a b"},
			[]plugintest.FieldErr{{"name", `"a b" must not hold '/' or white space: the name is part of the plugin's hook IDs`}}},
		{"priority out of range", middleware.Config{Priority: math.MaxInt32 + 1},
			[]plugintest.FieldErr{{"priority", "priority 2147483648 is out of range [-2147483648, 2147483647]"}}},
		{"negative async_timeout", middleware.Config{AsyncTimeout: -time.Second},
			[]plugintest.FieldErr{{"async_timeout", "must not be negative, got -1s"}}},
		{"unnamed middleware", middleware.Config{Chain: []middleware.Middleware{{}}},
			[]plugintest.FieldErr{{"chain[0].name", "must not be empty: a middleware's name names its hooks"}}},
		{"two of a name", middleware.Config{Chain: []middleware.Middleware{{Name: "a"}, {Name: "a"}}},
			[]plugintest.FieldErr{{"chain[1].name", `"a" names two middlewares: names are unique within a chain`}}},
		{"unknown flow", middleware.Config{Chain: []middleware.Middleware{{Name: "a", Flows: []middleware.Handlers{{Flow: "tools:call-tol"}}}}},
			[]plugintest.FieldErr{{"chain[0].flows[0].flow", `unknown flow "tools:call-tol" (did you mean "tools:call-tool"?)`}}},
		{"a flow twice", middleware.Config{Chain: []middleware.Middleware{{Name: "a", Flows: []middleware.Handlers{{Flow: flows.ToolsCallTool}, {Flow: flows.ToolsCallTool}}}}},
			[]plugintest.FieldErr{{"chain[0].flows[1].flow", `middleware "a" handles tools:call-tool twice: give it one Handlers per flow`}}},
		{"every problem at once", middleware.Config{Name: "a b", AsyncTimeout: -1, Chain: []middleware.Middleware{{}}},
			[]plugintest.FieldErr{
				{"name", `"a b" must not hold '/' or white space: the name is part of the plugin's hook IDs`},
				{"async_timeout", "must not be negative, got -1ns"},
				{"chain[0].name", "must not be empty: a middleware's name names its hooks"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tt.cfg.Validate())
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
