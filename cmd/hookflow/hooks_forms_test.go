package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The hooks verbs read a Claude Code plugin's directory and a settings
// file as an import does (-shell, -runners), and the store's listing
// names each entry's form: a shell line by its line, a runner as not
// covered, an http hook by its URL, a prompt hook by its prompt.
func TestHooksTrustForms(t *testing.T) {
	dir, err := os.MkdirTemp("", "hookflow-cli-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "guards")
	for _, d := range []string{"hooks", "scripts"} {
		if err := os.MkdirAll(filepath.Join(plugin, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(plugin, "scripts", "guard.sh"), []byte("#!/bin/bash\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = os.WriteFile(filepath.Join(plugin, "hooks", "hooks.json"), []byte(`{"hooks": {"PreToolUse": [{"hooks": [
  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh"},
  {"type": "command", "command": "cat | head -c 10"},
  {"type": "command", "command": "go run example.com/guard@latest"},
  {"type": "http", "url": "https://policy.example/check"},
  {"type": "prompt", "prompt": "Refuse deletes outside /tmp: $ARGUMENTS"}
]}]}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store", "trusted-hooks.json")
	code, out, errOut := runCmd(t, "", "hooks", "list", "-store", store, plugin)
	wantRun(t, code, exitFailed, out, errOut, `needs a shell: it holds a pipeline ("|")`, `allow it explicitly with "runner": true`)
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store, "-lenient", plugin)
	wantRun(t, code, exitFailed, out, errOut, "entry skipped (lenient)", "needs a shell: it holds a pipeline", "untrusted  PreToolUse  *        guard")
	code, out, errOut = runCmd(t, "", "hooks", "trust", "-store", store, "-shell", "*", "-runners", "go", plugin)
	wantRun(t, code, exitOK, out, errOut, "trusted: PreToolUse guard: "+filepath.Join(plugin, "scripts", "guard.sh"),
		`trusted: PreToolUse cat: shell line "cat | head -c 10"`, `trusted: PreToolUse go: runner `,
		"trusted: PreToolUse http: http hook POSTing to https://policy.example/check", "trusted: PreToolUse prompt: prompt hook PreToolUse/prompt")
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store)
	wantRun(t, code, exitOK, out, errOut, `"cat | head -c 10"`, "shell", `as "go run example.com/guard@latest"`, "runner: fetches code at run time, not covered",
		"http:https://policy.example/check ", `prompt:PreToolUse/prompt "Refuse deletes outside /tmp: $ARGUMENTS"`)
}
