package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// A script written for an agent's Bash tool guards a server tool of
// another name and other argument names, mapped per hook (toolNames in
// the settings file) or per file (Config.ToolNames): its matcher and its
// tool_name read "Bash", its tool_input "command", and its updatedInput is
// renamed back for the tool.
func TestToolNames(t *testing.T) {
	t.Parallel()
	const guard = `i = json.load(sys.stdin)
if i["tool_name"] != "Bash" or "command" not in i["tool_input"] or "path" in i["tool_input"]:
    print("not the agent's names: " + json.dumps(i), file=sys.stderr); sys.exit(2)
cmd = i["tool_input"]["command"]
if cmd.startswith("/etc"):
    print("no /etc", file=sys.stderr); sys.exit(2)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "/sandbox" + cmd, "force": False}}}))
`
	mapping := `{"delete": {"name": "Bash", "arguments": {"path": "command"}}}`
	tests := []struct {
		name    string
		perHook bool
	}{{"per hook", true}, {"per file", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.script("guard.py", python3+guard)
			key := ""
			if tt.perHook {
				key = `, "toolNames": ` + mapping
			}
			settingsFile := f.path("settings.json")
			body := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 guard.py"` + key + `}]}]}}`
			if err := os.WriteFile(settingsFile, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.SettingsFile = settingsFile
			if !tt.perHook {
				cfg.ToolNames = settings.ToolNames{"delete": {Name: "Bash", Arguments: map[string]string{"path": "command"}}}
			}
			s := f.serve(cfg)
			s.Call("delete", DeleteIn{Path: "/etc/passwd"}).WantToolError("no /etc")
			s.Call("delete", DeleteIn{Path: "/tmp/x", Force: true}).WantText("deleted /sandbox/tmp/x force=false")
		})
	}
}

// A mapping that names no tool, or renames two arguments to one name, is
// an error at its place.
func TestToolNamesErrors(t *testing.T) {
	t.Parallel()
	cfg := command.Config{Settings: hooksFor("PreToolUse", "", settings.Hook{Command: "/bin/true"}),
		ToolNames: settings.ToolNames{"run": {Name: "Bash", Arguments: map[string]string{"a": "command", "b": "command"}}, "x": {}}}
	err := cfg.Validate()
	want := `tool_names.run.arguments.b: renames "b" to "command", as "a" is: each script name once`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "tool_names.x: maps a tool to a name") {
		t.Errorf("got %v, want %q and the empty entry", err, want)
	}
}
