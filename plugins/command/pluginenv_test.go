package command_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
)

// The hooks of a Claude Code plugin's hooks/hooks.json get the plugin's
// directory as CLAUDE_PLUGIN_ROOT, and SessionStart hooks a
// CLAUDE_ENV_FILE they can write (to nowhere: a server runs no later Bash
// command that would read it).
func TestPluginEnvironment(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.MkdirAll(f.path("hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.script("hooks/env.sh", bash+`echo "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PROJECT_DIR/root.txt"
echo 'export DEBUG=1' >> "$CLAUDE_ENV_FILE"
`)
	settings := f.path("hooks/hooks.json")
	body := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash hooks/env.sh", "failClosed": true}]}]}}`
	if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.SettingsFile = settings
	s := f.serve(cfg)
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	root, err := os.ReadFile(f.path("root.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(root)); got != filepath.Dir(filepath.Dir(settings)) {
		t.Errorf("CLAUDE_PLUGIN_ROOT=%q, want the plugin's directory %q", got, f.dir)
	}
	if len(f.log.find("command hook failed")) > 0 {
		t.Errorf("the hook failed writing CLAUDE_ENV_FILE: %q", f.log.recs)
	}
}
