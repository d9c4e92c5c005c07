package command_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Every problem of a settings file is reported at once, each at its
// file:line:col, with a did-you-mean where a name is close.
func TestSettingsErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.script("x.sh", bash+"exit 0\n")
	settingsFile := f.path("settings.json")
	const text = `{
  "permissions": {"allow": ["Bash"]},
  "hooks": {
    "PreToolUs": [],
    "PreToolUse": [
      {"matcher": "(", "hooks": [{"type": "command", "command": "bash x.sh"}]},
      {"hooks": [{"type": "command", "comand": "bash x.sh"}]},
      {"hooks": [{"type": "agent", "prompt": "check it"}]},
      {"hooks": [{"type": "command", "command": "bash x.sh | tee", "timeout": -1, "async": true}]},
      {"hooks": [{"type": "command", "command": "bash x.sh", "onFailure": "sometimes", "protocol": "ollm"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "bash x.sh"}]}]
  }
}
`
	if err := os.WriteFile(settingsFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := command.Inspect(command.Config{SettingsFile: settingsFile, TrustStore: f.store})
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`:4:5: hooks.PreToolUs: unknown event "PreToolUs" (did you mean "PreToolUse"?)`,
		`:6:19: hooks.PreToolUse[0].matcher: "(" is not a valid regular expression`,
		`:7:38: hooks.PreToolUse[1].hooks[0].comand: unknown key "comand" (did you mean "command"?)`,
		`:7:18: hooks.PreToolUse[1].hooks[0].command: is empty`,
		`:8:27: hooks.PreToolUse[2].hooks[0].type: is "agent": agent hooks (experimental in Claude Code) are not run by hookflow`,
		`:9:79: hooks.PreToolUse[3].hooks[0].timeout: must be a number of seconds greater than 0 and at most 86400, got -1`,
		`:9:92: hooks.PreToolUse[3].hooks[0].async: is not supported`,
		`:10:75: hooks.PreToolUse[4].hooks[0].onFailure: unknown failure rule "sometimes" (want agent, closed or open)`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), settingsFile+w) {
			t.Errorf("missing %q in\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), "Stop") || strings.Contains(err.Error(), "permissions") {
		t.Errorf("an agent-only event or setting was refused:\n%v", err)
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != len(want)+1 {
		t.Errorf("%d errors, want %d (the shell syntax too):\n%v", got, len(want)+1, err)
	}
	// In the file's order.
	var last [2]int
	for _, line := range strings.Split(err.Error(), "\n") {
		var pos [2]int
		if _, err := fmt.Sscanf(strings.TrimPrefix(line, settingsFile), ":%d:%d:", &pos[0], &pos[1]); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if pos[0] < last[0] || pos[0] == last[0] && pos[1] < last[1] {
			t.Errorf("errors not in the file's order:\n%v", err)
			break
		}
		last = pos
	}
}

func TestSettingsSyntaxError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	settingsFile := f.path("settings.json")
	if err := os.WriteFile(settingsFile, []byte("{\"hooks\": {\n  \"PreToolUse\": [}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := command.Inspect(command.Config{SettingsFile: settingsFile, TrustStore: f.store})
	if err == nil || !strings.HasPrefix(err.Error(), settingsFile+":2:18: invalid JSON: ") {
		t.Errorf("error %v", err)
	}
}

// Agent events that a server has no counterpart for are skipped with a
// warning, not refused: the file is the agent's too.
func TestUnmappedEventSkipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(settings.Settings{
		"Stop":       {{Hooks: []settings.Hook{{Command: f.script("stop.sh", bash+"exit 0\n")}}}},
		"PreToolUse": {{Hooks: []settings.Hook{{Command: f.script("guard.sh", bash+"exit 0\n")}}}},
	})
	s := f.serve(cfg)
	if hooks := s.plugin.Hooks(); len(hooks) != 1 || hooks[0].Name != "guard" {
		t.Errorf("hooks %+v", hooks)
	}
	if len(f.log.find("event has no counterpart in an MCP server", `event="Stop"`)) != 1 {
		t.Errorf("the skipped event was not logged: %q", f.log.recs)
	}
}

// A bad Config fails Start with the field's name.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  command.Config
		want string
	}{
		{command.Config{}, "settings_file: no hooks: name the agent's settings file, or import some (or set Settings in Go)"},
		{command.Config{Settings: settings.Settings{"PreToolUse": nil}, Timeout: -1}, "timeout: must not be negative"},
		{command.Config{Settings: settings.Settings{"PreToolUse": nil}, AgentToolNames: true}, "agent_tool_names: needs server_name"},
		{command.Config{Settings: settings.Settings{"PreToolUse": nil}, Env: map[string]string{"A=B": "x"}}, `env.A=B: "A=B" is not a variable name`},
	}
	for _, tt := range tests {
		err := startErr(t, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), `plugin "command"`) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Start error %v, want %q", err, tt.want)
		}
	}
}
