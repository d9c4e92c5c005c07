package command_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// badSettings holds one good hook and one bad entry of each kind.
const badSettings = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "delete", "hooks": [{"type": "command", "command": "bash block.sh"}]},
      {"hooks": [{"type": "command", "command": "bash block.sh", "colour": "red"}]},
      {"hooks": [{"type": "agent", "prompt": "Check the call"}]},
      {"hooks": [{"type": "command", "command": "bash block.sh | tee log"}]},
      {"hooks": [{"type": "http", "url": "ftp://policy.example/hook", "allowedEnvVars": ["TOKEN"]}]},
      {"matcher": "(", "hooks": [{"type": "command", "command": "bash block.sh"}]},
      {"matcher": 7, "hooks": [{"type": "command", "command": "bash block.sh"}, {"type": "command", "command": "bash block.sh", "async": true}]}
    ],
    "PostToolUse": {"matcher": "echo"},
    "PreToolUze": [{"hooks": [{"type": "command", "command": "bash block.sh"}]}]
  }
}
`

// One bad entry is reported at its file:line:col without hiding the
// others; strict (the default) refuses the file, lenient loads the good
// entries and skips each bad one with a warning at its position.
func TestStrictAndLenient(t *testing.T) {
	f := newFixture(t)
	f.script("block.sh", bash+"echo blocked >&2; exit 2\n")
	file := f.path("settings.json")
	if err := os.WriteFile(file, []byte(badSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`:5:66: hooks.PreToolUse[1].hooks[0].colour: unknown key "colour"`,
		`:6:27: hooks.PreToolUse[2].hooks[0].type: is "agent": agent hooks (experimental in Claude Code) are not run by hookflow`,
		`:7:49: hooks.PreToolUse[3].hooks[0].command: needs a shell: it holds a pipeline ("|")`,
		`:8:42: hooks.PreToolUse[4].hooks[0].url: "ftp://policy.example/hook" is not an absolute http or https URL`,
		`:9:19: hooks.PreToolUse[5].matcher: "(" is not a valid regular expression`,
		`:10:19: hooks.PreToolUse[6].matcher: must be a string, not a number`,
		`:10:138: hooks.PreToolUse[6].hooks[1].async: is not supported`,
		`:12:20: hooks.PostToolUse: must be an array of matcher groups, not an object`,
		`:13:5: hooks.PreToolUze: unknown event "PreToolUze" (did you mean "PreToolUse"?)`,
	}
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: file, Dir: f.dir}}
	_, err := command.Inspect(cfg)
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), file+w) {
			t.Errorf("strict: missing %q in\n%v", w, err)
		}
	}
	if err != nil && strings.Count(err.Error(), "\n")+1 != len(want) {
		t.Errorf("strict: %d errors, want %d:\n%v", strings.Count(err.Error(), "\n")+1, len(want), err)
	}

	cfg.Imports[0].Lenient = true
	quiet := cfg
	quiet.Logger = nil
	infos, err := command.Inspect(quiet)
	if err != nil || len(infos) != 1 || infos[0].Path != "hooks.PreToolUse[0].hooks[0]" {
		t.Fatalf("lenient: %+v, %v", infos, err)
	}
	s := f.serve(cfg)
	s.Call("delete", DeleteIn{Path: "x"}).WantToolError("blocked")
	for _, w := range want {
		if len(f.log.find("entry skipped (lenient)", file+w)) != 1 {
			t.Errorf("lenient: no warning %q in %q", w, f.log.find("lenient"))
		}
	}
}

// A program a hook needs that the server does not have turns a guard off
// in the agent: it is a start-up warning naming the hook, and a refusal
// when the hook fails closed.
func TestMissingProgram(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		hook settings.Hook
		msg  string
	}{
		{"program", settings.Hook{Name: "lint", Command: "no-such-linter-hookflow --check"}, `runs "no-such-linter-hookflow", which is not on the server's PATH`},
		{"shell line", settings.Hook{Name: "fmt", Command: "no-such-formatter-hookflow | cat", Shell: "bash"}, "runs no-such-formatter-hookflow, which the server's PATH does not have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := f.config(hooksFor("PreToolUse", "", tt.hook))
			quiet := cfg
			quiet.Logger = nil
			if _, err := command.Inspect(quiet); err != nil {
				t.Fatalf("a missing program refused the settings: %v", err)
			}
			f.serve(cfg)
			if len(f.log.find(tt.msg, `hook="`+tt.hook.Name+`"`)) != 1 {
				t.Errorf("no warning naming the hook: %q", f.log.find(tt.msg))
			}
			// Inspect, as "hookflow hooks list" runs it, logs the same.
			seen := &records{}
			quiet.Logger = slog.New(seen)
			if _, err := command.Inspect(quiet); err != nil || len(seen.find(tt.msg)) != 1 {
				t.Errorf("Inspect logged %q, %v", seen.find(""), err)
			}
			tt.hook.OnFailure = settings.RuleClosed
			_, err := command.Inspect(f.config(hooksFor("PreToolUse", "", tt.hook)))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("failClosed: error %v, want %q", err, tt.msg)
			}
		})
	}
}
