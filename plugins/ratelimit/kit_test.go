package ratelimit_test

import (
	"testing"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// TestPluginKit runs the checks every plugin should pass, with budgets
// large enough not to refuse the kit's calls.
func TestPluginKit(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return ratelimit.New(ratelimit.Config{
			PerSession: ratelimit.Limit{Rate: 1000, Burst: 100_000},
			PerTool:    ratelimit.Limit{Rate: 1000, Burst: 100_000},
		})
	}, nil)
}
