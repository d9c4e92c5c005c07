package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
)

// The forms teams write run as written: an inline shell line (with the
// hook's opt-in), an environment prefix, and a program found on PATH.
func TestCommandForms(t *testing.T) {
	f := newFixture(t)
	f.script("guard.sh", bash+`[ "$HOOK_ASK_CRITICAL" = true ] && { echo "prefix reached the script" >&2; exit 2; }; exit 0`+"\n")
	tests := []struct {
		name string
		hook command.Hook
		want string // the block's reason
	}{
		{"shell line", command.Hook{Command: `cat | grep -q '"tool_name":"echo"' && echo "piped: blocked" >&2 && exit 2`, Shell: true}, "piped: blocked"},
		{"env prefix", command.Hook{Command: "HOOK_ASK_CRITICAL=true bash guard.sh"}, "prefix reached the script"},
		{"program on PATH", command.Hook{Command: `sh -c 'echo "program: blocked" >&2; exit 2'`}, "program: blocked"},
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
	f.trust(f.config(hooksFor("PreToolUse", "", command.Hook{Command: line, Shell: true})))
	infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", command.Hook{Command: line, Shell: true})))
	if err != nil || len(infos) != 1 || infos[0].Trust != command.Trusted || infos[0].Identity.Form != command.FormShell {
		t.Fatalf("trusted line: %+v, %v", infos, err)
	}
	changed := f.config(hooksFor("PreToolUse", "", command.Hook{Command: line + " | cat", Shell: true}))
	infos, err = command.Inspect(changed)
	if err != nil || infos[0].Trust != command.Untrusted {
		t.Fatalf("changed line: %+v, %v", infos, err)
	}
	if err := startErr(t, changed); err == nil || !strings.Contains(err.Error(), `runs shell line "echo '{}' | cat | cat"`) ||
		!strings.Contains(err.Error(), "review the command, then run: hookflow hooks trust") {
		t.Errorf("Start error %v", err)
	}
}

// Trust is of content: the same scripts checked out at another path stay
// trusted, and the path is only what the listing shows.
func TestTrustSurvivesCheckout(t *testing.T) {
	f := newFixture(t)
	body := bash + "exit 0\n"
	f.script("guard.sh", body)
	f.trust(f.config(hooksFor("PreToolUse", "", command.Hook{Command: "bash guard.sh"})))
	other := newFixture(t)
	other.script("guard.sh", body)
	cfg := other.config(hooksFor("PreToolUse", "", command.Hook{Command: "bash guard.sh"}))
	cfg.TrustStore = f.store
	infos, err := command.Inspect(cfg)
	if err != nil || infos[0].Trust != command.Trusted || infos[0].Identity.Script != other.path("guard.sh") {
		t.Fatalf("moved checkout: %+v, %v", infos, err)
	}
	if err := os.WriteFile(other.path("guard.sh"), []byte(body+"# edited\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if infos, err = command.Inspect(cfg); err != nil || infos[0].Trust == command.Trusted {
		t.Fatalf("edited copy: %+v, %v", infos, err)
	}
}

// A runner fetches code no hash covers: refused without the opt-in, and
// named as such in the trust listing with it.
func TestRunnerOptIn(t *testing.T) {
	f := newFixture(t)
	realPath(t, "go") // a runner every machine that runs these tests has
	refused := f.config(hooksFor("PreToolUse", "", command.Hook{Command: "go run example.com/guard@latest"}))
	if _, err := command.Inspect(refused); err == nil || !strings.Contains(err.Error(), `allow it explicitly with "runner": true`) {
		t.Fatalf("Inspect error %v", err)
	}
	infos, err := command.Inspect(f.config(hooksFor("PreToolUse", "", command.Hook{Command: "go run example.com/guard@latest", Runner: true})))
	if err != nil {
		t.Fatal(err)
	}
	if id := infos[0].Identity; id.Form != command.FormRunner || !strings.Contains(id.String(), "fetches code at run time that this trust does not cover") {
		t.Errorf("identity %v", id)
	}
}
