package command_test

import (
	"testing"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// The shared plugin checks, with a PreToolUse and a PostToolUse hook that
// run for every call: hooks owned by the plugin's scope, the run contract
// kept, concurrent calls over 4 sessions (run with -race; 24 calls, each
// starting two processes, rather than the default 100), and
// attached to an app, hooks that run for that app's tools only.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(t testing.TB) framework.Plugin {
		f := newFixture(t)
		pass := f.script("pass.sh", "#!/bin/sh\nexec cat >/dev/null\n")
		cfg := f.config(settings.Settings{
			"PreToolUse":  {{Hooks: []settings.Hook{{Command: pass, MaxConcurrent: 100}}}},
			"PostToolUse": {{Hooks: []settings.Hook{{Command: pass, MaxConcurrent: 100}}}},
		})
		f.trust(cfg)
		return command.New(cfg)
	}, &plugintest.RunOptions{Calls: 24})
}
