package command_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/stages"
)

// A settings file's failClosed and onFailure, and Config.FailClosed, pick
// a hook's failure rule; without them the agents' rule applies, under
// which a failing hook lets the call go on and its failure is in the
// run's Failures (what the audit plugin records and the otel plugin
// counts as hookflow.hook.failed_open).
func TestFailureRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		key        string // the hook's failure key in the settings file
		failClosed bool   // Config.FailClosed
		blocks     bool
	}{
		{"no key: the agents' rule", ``, false, false},
		{"failClosed true", `, "failClosed": true`, false, true},
		{"failClosed false", `, "failClosed": false`, true, false},
		{"onFailure closed", `, "onFailure": "closed"`, false, true},
		{"onFailure agent", `, "onFailure": "agent"`, true, false},
		{"Config.FailClosed", ``, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.script("crash.sh", bash+"echo 'jq: command not found' >&2\nexit 127\n")
			settings := f.path("settings.json")
			body := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash crash.sh"` + tt.key + `}]}]}}`
			if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.SettingsFile, cfg.FailClosed = settings, tt.failClosed
			f.trust(cfg)
			p := command.New(cfg)
			var failures []string        // the run's Failures, read in finally
			var found []*command.Failure // the *Failure in them or in the run's error
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}, Setup: func(srv *framework.Server) error {
				return srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "failures", Fn: func(c *flows.Context) error {
					for _, err := range c.Failures() {
						failures = append(failures, err.Error())
						if f, ok := errors.AsType[*command.Failure](err); ok {
							found = append(found, f)
						}
					}
					if f, ok := errors.AsType[*command.Failure](c.Err()); ok {
						found = append(found, f)
					}
					return nil
				}})
			}})
			if err := h.Start(); err != nil {
				t.Fatal(err)
			}
			r := h.Call(plugintest.ToolEcho, echoHi)
			if tt.blocks {
				r.WantToolError(`command hook "crash" failed (exit): exited with code 127 (only 2 blocks): jq: command not found`)
				if len(failures) != 0 {
					t.Errorf("a blocking failure is also in Failures: %v", failures)
				}
			} else {
				if r.IsError() {
					t.Fatalf("the call was blocked: %s", r.Text())
				}
				if len(failures) != 1 || !strings.Contains(failures[0], "exited with code 127") {
					t.Errorf("Failures %v, want the hook's non-blocking failure", failures)
				}
			}
			wantPolicy := flows.FailOpen
			if tt.blocks {
				wantPolicy = flows.FailClosed
			}
			if len(found) != 1 || found[0].Name != "crash" || found[0].Kind != command.FailExit || found[0].ExitCode != 127 ||
				found[0].Policy != wantPolicy || found[0].Stderr != "jq: command not found" {
				t.Errorf("the run's *command.Failure values: %+v, want one exit 127 failure of crash, policy %v", found, wantPolicy)
			}
			if p.FailureCount() != 1 || len(f.log.find("command hook failed", `kind="exit"`, `stderr="jq: command not found"`)) != 1 {
				t.Errorf("failure not counted and logged: %d, %q", p.FailureCount(), f.log.recs)
			}
		})
	}
}

// onFailure and failClosed that disagree are an error at the key.
func TestFailureRuleConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.script("x.sh", bash)
	settings := f.path("settings.json")
	body := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash x.sh", "onFailure": "open", "failClosed": true}]}]}}`
	if err := os.WriteFile(settings, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.SettingsFile = settings
	_, err := command.Inspect(cfg)
	if err == nil || !strings.Contains(err.Error(), `:1:117: hooks.PreToolUse[0].hooks[0].failClosed: says closed, and the hook's other failure key says open: keep one`) {
		t.Errorf("got %v", err)
	}
}
