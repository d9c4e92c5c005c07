package command_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
)

// The hooks of a Claude Code plugin's hooks/hooks.json get the plugin's
// directory as CLAUDE_PLUGIN_ROOT however the plugin is loaded (the
// settings file, an import's file, an import's plugin directory), and
// SessionStart hooks a CLAUDE_ENV_FILE they can write (to nowhere: a
// server runs no later Bash command that would read it).
func TestPluginEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		load func(cfg *command.Config, root string)
	}{
		{"settings file", func(cfg *command.Config, root string) {
			cfg.SettingsFile = filepath.Join(root, "hooks", "hooks.json")
		}},
		{"imported file", func(cfg *command.Config, root string) {
			cfg.Imports = []command.Import{{File: filepath.Join(root, "hooks", "hooks.json")}}
		}},
		{"imported plugin", func(cfg *command.Config, root string) {
			cfg.Imports = []command.Import{{Plugin: root}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			root := f.path("plugin")
			if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.script("plugin/hooks/env.sh", bash+`echo "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PROJECT_DIR/root.txt"
echo 'export DEBUG=1' >> "$CLAUDE_ENV_FILE"
`)
			body := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/env.sh", "failClosed": true}]}]}}`
			if err := os.WriteFile(filepath.Join(root, "hooks", "hooks.json"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			tt.load(&cfg, root)
			s := f.serve(cfg)
			if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
				t.Fatal(r.Text())
			}
			got, err := os.ReadFile(f.path("root.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(got)); got != root {
				t.Errorf("CLAUDE_PLUGIN_ROOT=%q, want the plugin's directory %q", got, root)
			}
			if len(f.log.find("command hook failed")) > 0 {
				t.Errorf("the hook failed writing CLAUDE_ENV_FILE: %q", f.log.recs)
			}
		})
	}
}
