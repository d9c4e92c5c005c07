package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// The forms teams write run as written: an inline shell line (with the
// hook's opt-in), an environment prefix, and a program found on PATH.
func TestCommandForms(t *testing.T) {
	f := newFixture(t)
	f.script("guard.sh", bash+`[ "$HOOK_ASK_CRITICAL" = true ] && { echo "prefix reached the script" >&2; exit 2; }; exit 0`+"\n")
	tests := []struct {
		name string
		hook settings.Hook
		want string // the block's reason
	}{
		{"shell line", settings.Hook{Command: `cat | grep -q '"tool_name":"echo"' && echo "piped: blocked" >&2 && exit 2`, Shell: "bash"}, "piped: blocked"},
		{"env prefix", settings.Hook{Command: "HOOK_ASK_CRITICAL=true bash guard.sh"}, "prefix reached the script"},
		{"program on PATH", settings.Hook{Command: `sh -c 'echo "program: blocked" >&2; exit 2'`}, "program: blocked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := f.config(hooksFor("PreToolUse", "", tt.hook))
			cfg.Interpreters = []string{"bash"} // sh is then a program on PATH
			s := f.serve(cfg)
			s.Call(plugintest.ToolEcho, echoHi).WantToolError(tt.want)
		})
	}
}

// An inline command is trusted by the exact line: a changed line is not
// trusted, and the error says so and how to trust it.
func TestShellLineTrust(t *testing.T) {
	f := newFixture(t)
	line := `echo '{}' | cat`
	f.trust(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: line, Shell: "bash"})))
	infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: line, Shell: "bash"})))
	if err != nil || len(infos) != 1 || infos[0].Trust != trust.Trusted || infos[0].Identity.Form != trust.FormShell {
		t.Fatalf("trusted line: %+v, %v", infos, err)
	}
	changed := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: line + " | cat", Shell: "bash"}))
	infos, err = command.Inspect(changed)
	if err != nil || infos[0].Trust != trust.Untrusted {
		t.Fatalf("changed line: %+v, %v", infos, err)
	}
	if err := startErr(t, changed); err == nil || !strings.Contains(err.Error(), `runs shell line "echo '{}' | cat | cat"`) ||
		!strings.Contains(err.Error(), "review the command, then run: trust.Update(") || strings.Contains(err.Error(), "-script") {
		t.Errorf("Start error %v", err)
	}
}

// Trust is of content: the same scripts checked out at another path stay
// trusted, and the path is only what the listing shows.
func TestTrustSurvivesCheckout(t *testing.T) {
	f := newFixture(t)
	body := bash + "exit 0\n"
	f.script("guard.sh", body)
	f.trust(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "bash guard.sh"})))
	other := newFixture(t)
	other.script("guard.sh", body)
	cfg := other.config(hooksFor("PreToolUse", "", settings.Hook{Command: "bash guard.sh"}))
	cfg.TrustStore = f.store
	infos, err := command.Inspect(cfg)
	if err != nil || infos[0].Trust != trust.Trusted || infos[0].Identity.Script != other.path("guard.sh") {
		t.Fatalf("moved checkout: %+v, %v", infos, err)
	}
	if err := os.WriteFile(other.path("guard.sh"), []byte(body+"# edited\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if infos, err = command.Inspect(cfg); err != nil || infos[0].Trust == trust.Trusted {
		t.Fatalf("edited copy: %+v, %v", infos, err)
	}
}

// A runner fetches code no hash covers: refused without the opt-in, and
// named as such in the trust listing with it.
func TestRunnerOptIn(t *testing.T) {
	f := newFixture(t)
	realPath(t, "go") // a runner every machine that runs these tests has
	refused := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "go run example.com/guard@latest"}))
	if _, err := command.Inspect(refused); err == nil || !strings.Contains(err.Error(), `allow it explicitly with "runner": true`) {
		t.Fatalf("Inspect error %v", err)
	}
	infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "go run example.com/guard@latest", Runner: true})))
	if err != nil {
		t.Fatal(err)
	}
	if id := infos[0].Identity; id.Form != trust.FormRunner || !strings.Contains(id.String(), "fetches code at run time that this trust does not cover") {
		t.Errorf("identity %v", id)
	}
}

// The command line is split as a shell would split it, without one:
// quotes, escapes and continuations removed, the hook's variables and ~
// expanded, NAME=value prefixes set in the environment.
func TestCommandWords(t *testing.T) {
	t.Setenv("HOME", "/home/hooks")
	f := newFixture(t)
	f.script("argv.sh", bash+`printf '%s\n' "$@" > "$CLAUDE_PROJECT_DIR/argv.txt"; printf '%s' "$MODE" > "$CLAUDE_PROJECT_DIR/mode.txt"`+"\n")
	line := `MODE='a b' bash argv.sh 'single $X' "double \"q\" \$HOME" back\ slash ~/notes "$CLAUDE_PROJECT_DIR"/x pre${EXTRA}post con\
tinued 'a'"b"c`
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: line}))
	cfg.Env = map[string]string{"EXTRA": "-mid-"}
	cfg.EnvAllow = []string{"PATH", "HOME"}
	s := f.serve(cfg)
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	argv, err := os.ReadFile(f.path("argv.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"single $X", `double "q" $HOME`, "back slash", "/home/hooks/notes", f.dir + "/x", "pre-mid-post", "continued", "abc"}, "\n") + "\n"
	if string(argv) != want {
		t.Errorf("argv:\n%s\nwant:\n%s", argv, want)
	}
	if mode, _ := os.ReadFile(f.path("mode.txt")); string(mode) != "a b" {
		t.Errorf("MODE = %q, want %q", mode, "a b")
	}
}

// A command line and a settings file are bounded: a 100 KB line and a
// 5 MB file are refused with their limits, not read into every hook.
func TestCommandBounds(t *testing.T) {
	f := newFixture(t)
	f.script("guard.sh", bash+"exit 0\n")
	long := "bash guard.sh " + strings.Repeat("a", 100<<10)
	if _, err := command.Inspect(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: long}))); err == nil ||
		!strings.Contains(err.Error(), "more than the 65536 a command may have") {
		t.Errorf("a 100 KB line: %v", err)
	}
	big := f.path("big.json")
	data := `{"hooks": {}, "pad": "` + strings.Repeat("x", 5<<20) + `"}`
	if err := os.WriteFile(big, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: big}}
	if _, err := command.Inspect(cfg); err == nil || !strings.Contains(err.Error(), "more than the 4194304 bytes a settings file may have") {
		t.Errorf("a 5 MB file: %v", err)
	}
}

// A program that is no interpreter of the configuration still runs the
// files its line names (sh guard.sh, python guard.py): their content is
// part of the trust, checked at start and before each run.
func TestProgramFilesTrust(t *testing.T) {
	f := newFixture(t)
	f.script("guard.sh", "exit 0\n")
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "sh guard.sh"}))
	cfg.Interpreters = []string{"bash"}
	s := f.serve(cfg)
	infos, err := command.Inspect(cfg)
	if err != nil || infos[0].Identity.Form != trust.FormProgram || len(infos[0].Identity.Files) != 1 ||
		infos[0].Identity.Files[0].Path != f.path("guard.sh") {
		t.Fatalf("identity: %+v, %v", infos, err)
	}
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	if err := os.WriteFile(f.path("guard.sh"), []byte("echo edited >&2; exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Call(plugintest.ToolEcho, echoHi).WantToolError("a command hook is not trusted: the operator must review it")
	if len(f.log.find("the file "+f.path("guard.sh")+" its command names changed since it was trusted")) != 1 {
		t.Errorf("no warning of the edited file: %q", f.log.find("changed"))
	}
	if infos, err = command.Inspect(cfg); err != nil || infos[0].Trust == trust.Trusted {
		t.Errorf("after the edit: %+v, %v", infos, err)
	}
}
