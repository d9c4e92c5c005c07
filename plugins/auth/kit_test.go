package auth_test

import (
	"testing"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// TestPluginKit runs the checks every plugin should pass. The kit's tools
// require no scope, so calls without a token pass the plugin.
func TestPluginKit(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return auth.New(auth.Config{ToolScopes: map[string][]string{}})
	}, nil)
}
