package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The hooks verbs show what an mcp_tool hook sends where: list and trust
// name its server, tool and input, and its opt-in to send the call's
// data; without -send-arguments the file is refused at the key, as its
// import without send_arguments is; the store's listing keeps the input.
func TestHooksMCPTool(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	err := os.WriteFile(settings, []byte(`{"hooks": {"PreToolUse": [{"matcher": "fs_write_file", "hooks": [
  {"type": "mcp_tool", "name": "scan", "server": "fs", "tool": "scan", "input": {"path": "${tool_input.path}"}}
]}]}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store", "trusted-hooks.json")
	code, out, errOut := runCmd(t, "", "hooks", "list", "-store", store, settings)
	wantRun(t, code, exitFailed, out, errOut, `PreToolUse[0].hooks[0].input: names ${tool_input.path}, the call's own data, which would go to fs/scan`)
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store, "-send-arguments", "scan", settings)
	wantRun(t, code, exitFailed, out, errOut, `untrusted  PreToolUse  fs_write_file  scan`, `mcp_tool fs/scan with {"path":"${tool_input.path}"}, sending the call's data (sendArguments)`)
	code, out, errOut = runCmd(t, "", "hooks", "trust", "-store", store, "-send-arguments", "scan", settings)
	wantRun(t, code, exitOK, out, errOut, `trusted: PreToolUse scan: mcp_tool hook calling fs/scan with {"path":"${tool_input.path}"}, sending the call's data (sendArguments)`)
	code, out, errOut = runCmd(t, "", "hooks", "list", "-store", store)
	wantRun(t, code, exitOK, out, errOut, `mcp_tool:fs/scan with {"path":"${tool_input.path}"}, sending the call's data (sendArguments)`, "mcp_tool")
}
