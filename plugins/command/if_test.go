package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
)

// A Claude Code settings file whose hooks carry "if" rules loads as
// written, and each hook runs only for the calls its rule matches, read
// from the arguments as the hook's script knows them (toolNames): a guard
// of "Bash(rm *)" blocks rm however it is chained, and nothing else.
func TestIfConditions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.script("block.sh", bash+"echo \"blocked by $1\" >&2; exit 2\n")
	const names = `"toolNames": {"delete": {"name": "Bash", "arguments": {"path": "command"}}}`
	settings := f.path("settings.json")
	body := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "if": "Bash(rm *)", "command": "bash block.sh rm", ` + names + `},
  {"type": "command", "if": "Bash(git push:*)", "command": "bash block.sh push", ` + names + `},
  {"type": "command", "if": "Bash(force:true)", "command": "bash block.sh force", ` + names + `}
]}]}}`
	if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: settings, Dir: f.dir}}
	s := f.serve(cfg)
	tests := []struct {
		in      DeleteIn
		blocked string // the hook that blocks, "" for none
	}{
		{DeleteIn{Path: "rm -rf build"}, "rm"},
		{DeleteIn{Path: "ls && rm x"}, "rm"},
		{DeleteIn{Path: "FOO=1 timeout 5 rm x"}, "rm"},
		{DeleteIn{Path: "echo 'rm x'"}, ""},
		{DeleteIn{Path: "ls -la"}, ""},
		{DeleteIn{Path: "rmdir x"}, ""},
		{DeleteIn{Path: "git push origin main"}, "push"},
		{DeleteIn{Path: "git pull"}, ""},
		{DeleteIn{Path: "echo $(rm x)"}, "rm"}, // not read: the hook runs
		{DeleteIn{Path: "ls", Force: true}, "force"},
	}
	for _, tt := range tests {
		r := s.Call("delete", tt.in)
		switch {
		case tt.blocked == "" && r.IsError():
			t.Errorf("%+v blocked: %s", tt.in, r.Text())
		case tt.blocked != "" && (!r.IsError() || !strings.Contains(r.Text(), "blocked by "+tt.blocked)):
			t.Errorf("%+v: %s, want blocked by %s", tt.in, r.Text(), tt.blocked)
		}
	}
}

// An "if" rule hookflow cannot read as the reference documents it
// refuses the file, naming the rule's place, while a file's other
// errors are still reported.
func TestIfRefusedAtLoad(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	settings := f.path("settings.json")
	body := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "if": "Bash(git *)|Bash(npm *)", "command": "/bin/true"},
  {"type": "command", "if": "Agent(Explore)", "command": "/bin/true"}
]}]}}`
	if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := command.Inspect(command.Config{SettingsFile: settings, TrustStore: f.store})
	if err == nil {
		t.Fatal("the file loads")
	}
	for _, want := range []string{
		`:2:29: hooks.PreToolUse[0].hooks[0].if: "Bash(git *)|Bash(npm *)" is not one rule`,
		`:3:29: hooks.PreToolUse[0].hooks[1].if: "Agent(Explore)" has a specifier hookflow does not know for Agent`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
