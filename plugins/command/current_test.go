package command_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// The forms the agents' references document today load as written (see
// docs/command-hooks.md, "The agents' newer forms"): Claude Code's exec
// form, its onFailure words and its shell string, and Codex's
// commandWindows, additionalContextLimit, SessionEnd and Interrupt.
func TestCurrentForms(t *testing.T) {
	tests := []struct {
		name   string
		file   string   // the settings file in the corpus copy
		hooks  []string // name/form/rule of each hook loaded, in order
		block  string   // the reason a call of delete is blocked with
		warned []string // what the log warns of at load
	}{{
		name:  "claude-current",
		file:  filepath.Join(".claude", "settings.json"),
		hooks: []string{"bash/program/closed", "cat/shell/agent", "refuse/program/agent"},
		block: "exec form: no deletes here",
	}, {
		name:   "codex-current",
		file:   filepath.Join(".codex", "hooks.json"),
		hooks:  []string{"guard/script/agent"},
		block:  "codex today: no deletes",
		warned: []string{"SessionEnd", "Interrupt"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			root := copyCorpus(t, f, tt.name)
			cfg := f.config(nil)
			cfg.Dir = root
			cfg.Imports = []command.Import{{File: filepath.Join(root, tt.file)}}
			infos, err := command.Inspect(cfg)
			if err != nil {
				t.Fatalf("the file does not load as written: %v", err)
			}
			var got []string
			for _, h := range infos {
				got = append(got, h.Name+"/"+h.Identity.Form.String()+"/"+h.OnFailure.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.hooks, " ") {
				t.Errorf("hooks %v, want %v", got, tt.hooks)
			}
			for _, ev := range tt.warned {
				if len(f.log.find("no counterpart in an MCP server", ev)) == 0 {
					t.Errorf("no warning that %s is skipped", ev)
				}
			}
			s := f.serve(cfg)
			s.Call("delete", DeleteIn{Path: "x"}).WantToolError(tt.block)
			if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
				t.Errorf("echo: %s", r.Text())
			}
		})
	}
}

// An exec form's trust covers the program, each argument and the files
// they name: another argument, or an edited script, is not trusted.
func TestExecFormTrust(t *testing.T) {
	f := newFixture(t)
	script := f.script("refuse.sh", "#!/bin/bash\necho \"$1\" >&2\nexit 2\n")
	exec := func(args ...string) command.Config {
		return f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "bash", Args: args}))
	}
	f.trust(exec("${CLAUDE_PROJECT_DIR}/refuse.sh", "no"))
	infos, err := command.Inspect(exec("${CLAUDE_PROJECT_DIR}/refuse.sh", "no"))
	if err != nil || len(infos) != 1 {
		t.Fatalf("Inspect: %+v, %v", infos, err)
	}
	id := infos[0].Identity
	if infos[0].Trust != trust.Trusted || id.Form != trust.FormProgram || id.Line != "bash "+script+" no" ||
		len(id.Files) != 1 || id.Files[0].Path != script {
		t.Errorf("trusted exec form: %+v, %s", infos[0].Trust, id)
	}
	if infos, err := command.Inspect(exec("${CLAUDE_PROJECT_DIR}/refuse.sh", "yes")); err != nil || infos[0].Trust == trust.Trusted {
		t.Errorf("another argument: %+v, %v", infos, err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/bash\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if infos, err := command.Inspect(exec("${CLAUDE_PROJECT_DIR}/refuse.sh", "no")); err != nil || infos[0].Trust == trust.Trusted {
		t.Errorf("an edited script: %+v, %v", infos, err)
	}
}

// The agents' keys a server cannot honour are refused with a message
// that names the key and says why; a near miss of a rule names it.
func TestCurrentFormsRefused(t *testing.T) {
	tests := []struct {
		name, hook, want string
	}{
		{"asyncRewake", `"command": "bash g.sh", "asyncRewake": true`, `asyncRewake: is not supported: a server's command hook runs for every matching call and takes part in its outcome; it has no idle model to wake`},
		{"shell zsh", `"command": "bash g.sh", "shell": "zsh"`, `shell: must be "bash", "powershell", true or false, not "zsh"`},
		{"args with a shell", `"command": "bash", "args": ["g.sh"], "shell": "bash"`, `args: runs the program without a shell: remove "shell"`},
		{"args not an array", `"command": "bash", "args": "g.sh"`, `args: must be an array of strings, not a string`},
		{"args with a NUL", `"command": "bash", "args": ["g\u0000.sh"]`, `command: argument 1 holds a NUL byte`},
		{"a near miss of block", `"command": "bash g.sh", "onFailure": "blok"`, `onFailure: unknown failure rule "blok" (did you mean "block"?)`},
		{"a negative limit", `"command": "bash g.sh", "additionalContextLimit": -1`, `additionalContextLimit: must be a whole number from 0 to`},
		{"commandWindows not a string", `"command": "bash g.sh", "commandWindows": 5`, `commandWindows: must be a string, not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.script("g.sh", blockAll)
			file := f.path("settings.json")
			data := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", ` + tt.hook + `}]}]}}`
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.SettingsFile = file
			_, err := command.Inspect(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// "shell": "powershell" runs the line through pwsh, named in the trust
// listing; without pwsh the hook is left out, as a missing program is,
// and refused under a closed rule.
func TestPowerShellHook(t *testing.T) {
	f := newFixture(t)
	hook := settings.Hook{Command: "exit 0", Shell: "powershell"}
	pwsh, err := exec.LookPath("pwsh")
	if err != nil {
		infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", hook)))
		if err != nil || len(infos) != 0 || len(f.log.find("pwsh is not on the server's PATH")) == 0 {
			t.Errorf("without pwsh: %+v, %v", infos, err)
		}
		hook.OnFailure = settings.RuleClosed
		if _, err := command.Inspect(f.config(hooksFor("PreToolUse", "", hook))); err == nil || !strings.Contains(err.Error(), "pwsh is not on the server's PATH") {
			t.Errorf("without pwsh, closed: %v", err)
		}
		return
	}
	infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", hook)))
	if err != nil || len(infos) != 1 || infos[0].Identity.Form != trust.FormShell ||
		!strings.Contains(infos[0].Identity.String(), "run by "+pwsh) {
		t.Errorf("with pwsh: %+v, %v", infos, err)
	}
}
