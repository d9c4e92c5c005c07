package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayCommandHooks runs hookflow gateway in front of a real upstream
// with a team's Claude Code settings imported as written from the
// configuration file (no Go code): an env-prefixed script and an inline
// shell line the import lets run through a shell, both trusted with
// "hookflow hooks trust". The guard blocks echo {"x": 1} and lets
// echo {"x": 2} through.
func TestGatewayCommandHooks(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".claude", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(project, ".claude", "hooks", "guard.sh"), `#!/bin/bash
input=$(cat)
if [ "$GUARD_MODE" = strict ] && [[ "$input" == *'"x":1'* ]]; then echo "guard: x=1 is refused" >&2; exit 2; fi
exit 0
`, 0o755)
	settings := filepath.Join(project, ".claude", "settings.json")
	write(settings, `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "echo", "hooks": [
        {"type": "command", "command": "GUARD_MODE=strict bash .claude/hooks/guard.sh", "timeout": 10},
        {"type": "command", "command": "cat > /dev/null && echo '{}'"}
      ]}
    ]
  }
}
`, 0o644)
	store := filepath.Join(dir, "trusted-hooks.json")
	out, err := exec.Command(hookflow, "hooks", "trust", "-store", store, "-shell", "PreToolUse[0].hooks[1]", settings).CombinedOutput()
	if err != nil {
		t.Fatalf("hookflow hooks trust: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `trusted: PreToolUse cat: shell line "cat > /dev/null && echo '{}'"`) {
		t.Errorf("hookflow hooks trust said:\n%s", out)
	}
	config := filepath.Join(dir, "gateway.yaml")
	write(config, `serve: {http: '127.0.0.1:0', health: /healthz}
upstreams:
  - {name: up, url: '`+upURL+`'}
plugins:
  command:
    trust_store: '`+store+`'
    imports:
      - file: project/.claude/settings.json
        shell: ['PreToolUse[0].hooks[1]']
`, 0o600)
	addr, logs, _ := startGateway(t, hookflow, nil, "-config", config)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "command-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	for _, tc := range []struct {
		x       int
		blocked bool
	}{{1, true}, {2, false}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": tc.x}})
		if err != nil {
			t.Fatalf("echo: %v\n%s", err, logs.String())
		}
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].(*mcp.TextContent).Text
		}
		if res.IsError != tc.blocked || tc.blocked && !strings.Contains(text, "guard: x=1 is refused") {
			t.Errorf("echo x=%d: isError %v %q, want blocked %v\n%s", tc.x, res.IsError, text, tc.blocked, logs.String())
		}
	}
}
