package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hooksProject writes a project with a settings file of two command hooks
// and returns the settings file, the trust store's path and the script.
func hooksProject(t *testing.T) (settings, store, guard string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hookflow-cli-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	guard = filepath.Join(dir, ".claude", "hooks", "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/bash\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings = filepath.Join(dir, ".claude", "settings.json")
	err = os.WriteFile(settings, []byte(`{"hooks": {
  "PreToolUse": [{"matcher": "delete", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "bash .claude/hooks/guard.sh", "name": "after"}]}]
}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return settings, filepath.Join(dir, "store", "trusted-hooks.json"), guard
}

func wantRun(t *testing.T, code int, wantCode int, stdout, stderr string, wantOut ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, wantCode, stdout, stderr)
	}
	for _, w := range wantOut {
		if !strings.Contains(stdout+stderr, w) {
			t.Errorf("output does not contain %q\nstdout: %s\nstderr: %s", w, stdout, stderr)
		}
	}
}

// The trust workflow: list shows untrusted hooks, trust records them, an
// edit makes the script untrusted again, revoke forgets it.
func TestHooksTrustWorkflow(t *testing.T) {
	settings, store, guard := hooksProject(t)
	code, out, errOut := runCmd(t, "", "hooks", "list", "-store", store, settings)
	wantRun(t, code, exitFailed, out, errOut, "untrusted  PreToolUse   delete   guard", "untrusted  PostToolUse  *        after",
		settings+":2:50", "hookflow hooks trust -store "+store+" "+settings)

	code, out, errOut = runCmd(t, "", "hooks", "trust", "-store", store, settings, "guard")
	wantRun(t, code, exitOK, out, errOut, "trusted: PreToolUse guard: "+guard+" (sha256 ")
	if strings.Contains(out, "after") {
		t.Errorf("trust of one hook trusted another:\n%s", out)
	}
	code, out, errOut = runCmd(t, "", "hooks", "trust", "-store", store, settings)
	wantRun(t, code, exitOK, out, errOut, "already trusted: PreToolUse guard", "trusted: PostToolUse after: "+guard+" (sha256 ", " with /")
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store, settings)
	wantRun(t, code, exitOK, out, errOut, "trusted  PreToolUse", "trusted  PostToolUse")

	if err := os.WriteFile(guard, []byte("#!/bin/bash\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store, settings)
	wantRun(t, code, exitFailed, out, errOut, "changed  PreToolUse")

	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store)
	wantRun(t, code, exitOK, out, errOut, "SCRIPT", guard)
	code, out, errOut = runCmd(t, "", "hooks", "revoke", "-store", store, guard)
	wantRun(t, code, exitOK, out, errOut, "revoked: "+guard)
	code, out, errOut = runCmd(t, "", "hooks", "revoke", "-store", store, guard)
	wantRun(t, code, exitFailed, out, errOut, "nothing in "+store+" matches")
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store: %v (mode %v)", err, fi.Mode())
	}
}

func TestHooksTrustScript(t *testing.T) {
	_, store, guard := hooksProject(t)
	code, out, errOut := runCmd(t, "", "hooks", "trust", "-store", store, "-script", guard, "-interpreter", "/bin/sh")
	wantRun(t, code, exitOK, out, errOut, "trusted: "+guard+" (sha256 ", "with /bin/sh")
	code, out, errOut = runCmd(t, "", "hooks", "trust", "-store", store, "-script", guard, "-interpreter", "sh")
	wantRun(t, code, exitFailed, out, errOut, `the interpreter "sh" is not an absolute path`)
}

func TestHooksVerbErrors(t *testing.T) {
	settings, store, _ := hooksProject(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hooks", "trust"}, exitUsage, "usage: hookflow hooks trust"},
		{[]string{"hooks", "trust", "-h"}, exitOK, "usage: hookflow hooks trust"},
		{[]string{"hooks", "trust", "-store", store, settings, "gaurd"}, exitFailed, `has no command hook named "gaurd" (did you mean "guard"?)`},
		{[]string{"hooks", "trust", "-store", store, "/nonexistent.json"}, exitFailed, "reading hook settings"},
		{[]string{"hooks", "list", "-store", store, "a", "b"}, exitUsage, "usage: hookflow hooks list"},
		{[]string{"hooks", "revoke", "-store", store}, exitUsage, "usage: hookflow hooks revoke"},
		{[]string{"hooks", "trst"}, exitUsage, `unknown verb "trst" (did you mean "trust"?)`},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, "", tt.args...)
		wantRun(t, code, tt.code, out, errOut, tt.want)
	}
}
