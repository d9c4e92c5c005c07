package command_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

const blockAll = bash + "echo 'blocked by the guard' >&2\nexit 2\n"

// startErr starts a server with cfg's hooks as the trust store has them
// and returns the Start error.
func startErr(t *testing.T, cfg command.Config) error {
	t.Helper()
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{command.New(cfg)}})
	return h.Start()
}

// An untrusted hook stops the server from starting, with a message that
// names the script, the store and the command that trusts it.
func TestUntrustedRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("guard.sh", blockAll)
	t.Run("settings file", func(t *testing.T) {
		settingsFile := f.path("settings.json")
		if err := os.WriteFile(settingsFile, []byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "`+script+`"}]}]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		err := startErr(t, command.Config{SettingsFile: settingsFile, TrustStore: f.store})
		for _, want := range []string{
			settingsFile + ":1:38: ", // the hook object
			`command hook "guard" runs ` + script + " (sha256 ",
			"which is not in the trust store " + f.store,
			"review the script, then run: hookflow hooks trust -store " + f.store + " " + settingsFile,
		} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Start error %v\nwant it to contain %q", err, want)
			}
		}
	})
	t.Run("Go settings", func(t *testing.T) {
		cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "bash " + script}))
		err := startErr(t, cfg)
		want := "Config.Settings: hooks.PreToolUse[0].hooks[0]: command hook \"guard\" runs " + script
		if err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "hookflow hooks trust -store "+f.store+" -script "+script+" -interpreter /") {
			t.Fatalf("Start error %v\nwant it to contain %q and the trust command", err, want)
		}
		// Trusting what the message names (as the command does) is enough.
		_, interp, _ := strings.Cut(err.Error(), " -interpreter ")
		id, ierr := trust.IdentityOf(script, strings.TrimSpace(interp))
		if ierr != nil {
			t.Fatal(ierr)
		}
		if err := trust.Update(f.store, func(s *trust.Store) (bool, error) { return s.Trust(id, "", time.Now()), nil }); err != nil {
			t.Fatal(err)
		}
		if err := startErr(t, cfg); err != nil {
			t.Errorf("trusted as the message says, Start still fails: %v", err)
		}
	})
}

// With SkipUntrusted, untrusted hooks are logged and never run.
func TestUntrustedSkipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: f.script("guard.sh", blockAll)}))
	cfg.Untrusted = command.SkipUntrusted
	s := f.serveUntrusted(cfg)
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Errorf("the untrusted hook ran: %s", r.Text())
	}
	if len(f.log.find("command hook skipped", "which is not in the trust store", "hookflow hooks trust")) != 1 {
		t.Errorf("the skipped hook was not logged: %q", f.log.recs)
	}
	if len(s.plugin.Hooks()) != 0 {
		t.Errorf("registered %v", s.plugin.Hooks())
	}
}

// Trust is for a script's content and its interpreter: an edited script,
// or the same script run by another interpreter, is untrusted again.
func TestTrustIdentity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("guard.sh", blockAll)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "bash " + script}))
	f.trust(cfg)
	if err := startErr(t, cfg); err != nil {
		t.Fatalf("trusted hook refused: %v", err)
	}
	other := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: "sh " + script}))
	if err := startErr(t, other); err == nil || !strings.Contains(err.Error(), "which is not in the trust store") {
		t.Errorf("the script run by sh was trusted: %v", err)
	}
	if err := os.WriteFile(script, []byte(bash+"exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := startErr(t, cfg); err == nil || !strings.Contains(err.Error(), "which changed since it was trusted in "+f.store) {
		t.Errorf("the edited script was trusted: %v", err)
	}
}

// A script edited while the server runs no longer runs: the call fails by
// the hook's policy, the client reads a fixed text while the log and the
// audit record name the script, both hashes and the command that trusts
// it again, and the original content runs again.
func TestEditedWhileRunning(t *testing.T) {
	t.Parallel()
	// The agents' rule keeps a changed script closed: a caller cannot get
	// past a guard by what it provokes.
	for _, rule := range []settings.FailureRule{settings.RuleAgent, settings.RuleClosed, settings.RuleOpen} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			body := bash + `echo ran >> "$CLAUDE_PROJECT_DIR/runs"` + "\n"
			script := f.script("guard.sh", body)
			s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, OnFailure: rule})))
			if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
				t.Fatal(r.Text())
			}
			if err := os.WriteFile(script, []byte(body+"# edited\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			r := s.Call(plugintest.ToolEcho, echoHi)
			trusted, edited := sha256Hex(body), sha256Hex(body+"# edited\n")
			if rule != settings.RuleOpen {
				r.WantToolError("a command hook is not trusted: the operator must review it")
				for _, secret := range []string{script, f.dir, trusted, edited, trusted[:16], edited[:16], f.store} {
					if strings.Contains(r.Text(), secret) {
						t.Errorf("the client reads %q, which holds %q", r.Text(), secret)
					}
				}
			} else if r.IsError() {
				t.Errorf("fail-open call failed: %s", r.Text())
			}
			for _, rs := range []*records{f.audit, f.log} {
				if len(rs.find("command hook fail", `kind="changed"`, script, "sha256 was "+trusted+", is "+edited, "hookflow hooks trust -store")) != 1 {
					t.Errorf("the change was not recorded with the script and both hashes: %q", rs.recs)
				}
			}
			// Put back, it is the trusted script again.
			time.Sleep(10 * time.Millisecond) // a new ctime, even on coarse clocks
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
				t.Errorf("the restored script was refused: %s", r.Text())
			}
			runs, _ := os.ReadFile(f.path("runs"))
			if got := strings.Count(string(runs), "ran"); got != 2 {
				t.Errorf("the script ran %d times, want 2 (not the edited one)", got)
			}
		})
	}
}

// The store's file is refused when others may write it.
func TestTrustStoreShared(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: f.script("guard.sh", blockAll)}))
	f.trust(cfg)
	if err := os.Chmod(f.store, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := startErr(t, cfg); err == nil || !strings.Contains(err.Error(), "trust store: "+f.store+" is writable by its group or others") {
		t.Errorf("Start error %v", err)
	}
}

func TestTrustStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := trust.Identity{Script: "/srv/hooks/guard.sh", SHA256: strings.Repeat("ab", 32), Interpreter: "/usr/bin/bash"}
	edited := id
	edited.SHA256 = strings.Repeat("cd", 32)
	err := trust.Update(f.store, func(s *trust.Store) (bool, error) {
		if s.Status(id) != trust.Untrusted {
			t.Errorf("empty store: %v", s.Status(id))
		}
		return s.Trust(id, "bash /srv/hooks/guard.sh", time.Unix(0, 0)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.store)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store file: %v, mode %v", err, fi.Mode())
	}
	s, err := trust.Load(f.store)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   trust.Identity
		want trust.Status
	}{{id, trust.Trusted}, {edited, trust.Changed}, {trust.Identity{Script: id.Script, SHA256: id.SHA256}, trust.Untrusted}} {
		if got := s.Status(tt.id); got != tt.want {
			t.Errorf("Status(%+v) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if !s.Trust(edited, "", time.Now()) || len(s.Entries) != 1 || s.Status(id) != trust.Changed {
		t.Errorf("trusting the edited script did not replace the old entry: %+v", s.Entries)
	}
	if got := s.Revoke("cdcdcdcd"); len(got) != 1 || len(s.Entries) != 0 {
		t.Errorf("Revoke by hash: removed %v, left %v", got, s.Entries)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
