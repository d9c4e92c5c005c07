package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	commandhook "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// TestGatewayMCPToolHook runs hookflow gateway in front of the reference
// filesystem server (stdio, under Node 22; nobody here wrote it) with a
// team's Claude Code settings whose mcp_tool hook, write-policy, guards
// the upstream's write_file by reading a policy file through the same
// upstream's read_text_file, called through the gateway's own flow. The
// policy file holds the hook JSON that blocks: the write is refused, the
// file is not written, and the audit names write-policy as the deciding
// hook. A read, which the hook does not guard, goes through. The hook's
// server "fs" is mapped by mcp_servers, or by nothing: the gateway hands
// its upstreams' names and prefixes to the command plugin.
// .ci/world/install.sh installs the server and prints HOOKFLOW_NODE and
// HOOKFLOW_WORLD; without them the test skips, unless
// HOOKFLOW_REQUIRE_WORLD is set (CI sets it).
func TestGatewayMCPToolHook(t *testing.T) {
	node, world := os.Getenv("HOOKFLOW_NODE"), os.Getenv("HOOKFLOW_WORLD")
	if node == "" || world == "" {
		if os.Getenv("HOOKFLOW_REQUIRE_WORLD") != "" {
			t.Fatal("HOOKFLOW_REQUIRE_WORLD is set but HOOKFLOW_NODE or HOOKFLOW_WORLD is not: run eval \"$(.ci/world/install.sh)\"")
		}
		t.Skip("HOOKFLOW_NODE and HOOKFLOW_WORLD are not set: eval \"$(.ci/world/install.sh)\" installs the servers and sets them")
	}
	hookflow := build(t, "cmd/hookflow")
	for _, tc := range []struct {
		name       string
		mcpServers string // the command plugin's mcp_servers line, if any
	}{
		{"mcp_servers maps fs", "    mcp_servers: {fs: fs_}\n"},
		{"the upstream's own name", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, config := mcpToolGateway(t, hookflow, node, world, tc.mcpServers)
			checkMCPToolGateway(t, hookflow, dir, config)
		})
	}
}

// mcpToolGateway writes, under a new directory, the filesystem server's
// data with its policy file, the team's settings, trusted, and a gateway
// configuration whose command plugin has the mcpServers line; it returns
// the directory and the configuration file.
func mcpToolGateway(t *testing.T, hookflow, node, world, mcpServers string) (dir, config string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy := filepath.Join(data, "policy", "write.json")
	write(policy, `{"decision": "block", "reason": "writes are frozen by the write policy"}`+"\n")
	write(filepath.Join(data, "notes.txt"), "notes\n")
	settings := filepath.Join(dir, "project", ".claude", "settings.json")
	write(settings, `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "fs_write_file", "hooks": [
        {"type": "mcp_tool", "name": "write-policy", "server": "fs", "tool": "read_text_file",
         "input": {"path": "`+policy+`"}, "timeout": 20, "statusMessage": "Checking the write policy"}
      ]}
    ]
  }
}
`)
	store := filepath.Join(dir, "trusted-hooks.json")
	out, err := exec.Command(hookflow, "hooks", "trust", "-store", store, settings).CombinedOutput()
	if err != nil {
		t.Fatalf("hookflow hooks trust: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "trusted: PreToolUse write-policy: mcp_tool hook calling fs/read_text_file with {\"path\":") {
		t.Errorf("hookflow hooks trust said:\n%s", out)
	}
	fsServer := filepath.Join(world, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	config = filepath.Join(dir, "gateway.yaml")
	write(config, `serve: {http: '127.0.0.1:0', health: /healthz}
upstreams:
  - {name: fs, command: ['`+node+`', '`+fsServer+`', ./data], prefix: fs_}
plugins:
  audit: {file: audit.jsonl}
  command:
    trust_store: '`+store+`'
`+mcpServers+`    imports:
      - file: project/.claude/settings.json
`)
	return dir, config
}

// checkMCPToolGateway serves config and checks that the hook blocks the
// write and lets the read through, as the audit in dir says too.
func checkMCPToolGateway(t *testing.T, hookflow, dir, config string) {
	t.Helper()
	data := filepath.Join(dir, "data")
	addr, logs, _ := startGateway(t, hookflow, nil, "-config", config)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcptool-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	target := filepath.Join(data, "written.txt")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_write_file", Arguments: map[string]any{"path": target, "content": "should not be here"}})
	if err != nil {
		t.Fatalf("fs_write_file: %v\n%s", err, logs.String())
	}
	if !res.IsError || !strings.Contains(text(res), "writes are frozen by the write policy") {
		t.Errorf("fs_write_file answered %v %q, want the policy's block\n%s", res.IsError, text(res), logs.String())
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("%s was written despite the block", target)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read_text_file", Arguments: map[string]any{"path": filepath.Join(data, "notes.txt")}})
	if err != nil || res.IsError || !strings.Contains(text(res), "notes") {
		t.Errorf("fs_read_text_file: %v %q", err, text(res))
	}
	cs.Close()
	records := auditRecords(t, filepath.Join(dir, "audit.jsonl"))
	if decided := records["fs_write_file"]; len(decided) != 1 || !strings.HasSuffix(decided[0], "/write-policy") {
		t.Errorf("the audit's deciding hooks of fs_write_file are %q, want the command hook write-policy", decided)
	}
	// The hook's read ran through the gateway's flow, audited as a call
	// of its own, beside the client's read.
	if n := len(records["fs_read_text_file"]); n != 2 {
		t.Errorf("the audit has %d calls of fs_read_text_file, want 2 (the hook's and the client's)", n)
	}
}

// The command plugin's configuration takes the gateway's upstreams.
var _ host.UpstreamAware[commandhook.Config] = commandhook.Config{}

// text returns the text contents of res, joined.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// auditRecords returns the decided_by of the audit file's tools/call
// records, by tool.
func auditRecords(t *testing.T, file string) map[string][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		var ev struct {
			Flow      string `json:"flow"`
			Entity    string `json:"entity"`
			DecidedBy string `json:"decided_by"`
		}
		if json.Unmarshal(lines.Bytes(), &ev) == nil && strings.HasPrefix(ev.Flow, "tools:call") {
			out[ev.Entity] = append(out[ev.Entity], ev.DecidedBy)
		}
	}
	return out
}
