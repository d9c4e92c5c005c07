package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// A hook's failure rule is its own ("onFailure", "failClosed"), else its
// import's fail_closed, else Config.FailClosed, else the agents' rule;
// and a program the hook needs that is missing refuses the file exactly
// when that rule is closed.
func TestFailureRulePrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		config     bool   // Config.FailClosed
		file       bool   // Import.FailClosed
		key        string // the hook's own failure key
		want       settings.FailureRule
		missingErr bool // a missing program refuses the file
	}{
		{"nothing set", false, false, ``, settings.RuleAgent, false},
		{"the configuration", true, false, ``, settings.RuleClosed, true},
		{"the file", false, true, ``, settings.RuleClosed, true},
		{"the hook over the file", false, true, `, "onFailure": "agent"`, settings.RuleAgent, false},
		{"the hook's failClosed false over the file", false, true, `, "failClosed": false`, settings.RuleAgent, false},
		{"the hook over the configuration", true, false, `, "onFailure": "open"`, settings.RuleOpen, false},
		{"the hook closed", false, false, `, "failClosed": true`, settings.RuleClosed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.script("guard.sh", bash+"exit 0\n")
			file := f.path("settings.json")
			body := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash guard.sh"` + tt.key + `}]}]}}`
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.Logger, cfg.FailClosed = nil, tt.config
			cfg.Imports = []command.Import{{File: file, Dir: f.dir, FailClosed: tt.file}}
			infos, err := command.Inspect(cfg)
			if err != nil || len(infos) != 1 {
				t.Fatalf("Inspect: %+v, %v", infos, err)
			}
			if got := infos[0].OnFailure; got != tt.want {
				t.Errorf("rule %s, want %s", got, tt.want)
			}

			missing := strings.Replace(body, "bash guard.sh", "no-such-checker-hookflow --strict", 1)
			if err := os.WriteFile(file, []byte(missing), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = command.Inspect(cfg)
			if got := err != nil && strings.Contains(err.Error(), "no-such-checker-hookflow"); got != tt.missingErr {
				t.Errorf("a missing program refuses the file: %v, want %v (%v)", got, tt.missingErr, err)
			}
		})
	}
}
