package main

import (
	"os"
	"path/filepath"
	"testing"
)

// copilotProject writes a repository with a GitHub Copilot hook file of a
// script hook and a bash line, and returns the file, the trust store's
// path and the script.
func copilotProject(t *testing.T, name string) (file, store, guard string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".github", "hooks", "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	guard = filepath.Join(dir, ".github", "hooks", "scripts", "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/bash\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	err = os.WriteFile(file, []byte(`{"version": 1, "hooks": {
  "preToolUse": [{"type": "command", "bash": "./scripts/guard.sh", "cwd": ".github/hooks", "matcher": "delete"}],
  "postToolUse": [{"type": "command", "bash": "cat | wc -c >/dev/null", "name": "count"}]
}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return file, filepath.Join(dir, "store", "trusted-hooks.json"), guard
}

// "hookflow hooks list" and "trust" read a Copilot file as the plugin
// does: told from .github/hooks, or named with -agent copilot (and the
// repository with -dir) for a file elsewhere; a bash line is trusted
// with the shell it runs by, named.
func TestHooksTrustCopilot(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
	}{{".github/hooks/policy.json", nil}, {"ci/hooks.json", []string{"-agent", "copilot", "-dir"}}} {
		t.Run(tt.name, func(t *testing.T) {
			file, store, guard := copilotProject(t, tt.name)
			if len(tt.flags) > 0 {
				tt.flags = append(tt.flags, filepath.Dir(filepath.Dir(file)))
			}
			args := append(append([]string{"hooks", "list", "-store", store}, tt.flags...), file)
			code, out, errOut := runCmd(t, "", args...)
			wantRun(t, code, exitFailed, out, errOut, "untrusted  preToolUse   delete   guard", "untrusted  postToolUse  *        count")
			args = append(append([]string{"hooks", "trust", "-store", store}, tt.flags...), file)
			code, out, errOut = runCmd(t, "", args...)
			wantRun(t, code, exitOK, out, errOut, "trusted: preToolUse guard: "+guard+" (sha256 ", `trusted: postToolUse count: shell line "cat | wc -c >/dev/null"`, ") run by /")
			args = append(append([]string{"hooks", "list", "-store", store}, tt.flags...), file)
			code, out, errOut = runCmd(t, "", args...)
			wantRun(t, code, exitOK, out, errOut, "trusted  preToolUse", "trusted  postToolUse")
		})
	}
}
