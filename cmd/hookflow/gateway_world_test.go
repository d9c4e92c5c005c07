package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// worldChecks are the checks testdata/world/client.mjs reports, in its
// order.
var worldChecks = []string{
	"lists from all three", "calls", "progress", "capability-dependent tools", "sampling", "elicitation",
	"roots", "subscription update", "no gateway secret upstream", "an upstream killed is replaced before the next call",
}

// TestGatewayWorld runs hookflow gateway in front of MCP servers nobody
// here wrote, the reference servers everything, filesystem and memory
// (stdio, under Node 22), with static-token auth and audit, and drives it
// with the MCP TypeScript SDK's client (testdata/world/client.mjs): lists
// from all three, calls, progress, sampling, elicitation, roots, a
// subscription update, a tool the upstream offers to capable clients
// only, no gateway secret in an upstream's environment, and an upstream
// process killed and replaced before the next call. .ci/world/install.sh
// installs the servers and the SDK and prints HOOKFLOW_NODE and
// HOOKFLOW_WORLD; without them the test skips, unless
// HOOKFLOW_REQUIRE_WORLD is set (CI sets it).
func TestGatewayWorld(t *testing.T) {
	node, world := os.Getenv("HOOKFLOW_NODE"), os.Getenv("HOOKFLOW_WORLD")
	if node == "" || world == "" {
		if os.Getenv("HOOKFLOW_REQUIRE_WORLD") != "" {
			t.Fatal("HOOKFLOW_REQUIRE_WORLD is set but HOOKFLOW_NODE or HOOKFLOW_WORLD is not: run eval \"$(.ci/world/install.sh)\"")
		}
		t.Skip("HOOKFLOW_NODE and HOOKFLOW_WORLD are not set: eval \"$(.ci/world/install.sh)\" installs the servers and sets them")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the world leg finds the upstream processes in /proc")
	}
	hookflow := build(t, "cmd/hookflow")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "hello.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	server := func(name string) string {
		return filepath.Join(world, "node_modules", "@modelcontextprotocol", "server-"+name, "dist", "index.js")
	}
	// Every relative path is relative to the file: the filesystem
	// server's ./data, the memory file, the audit file.
	config := fmt.Sprintf(`name: world
serve: {http: "127.0.0.1:0", health: /health}
upstreams:
  - {name: everything, command: [%[1]q, %[2]q, stdio], prefix: ev_, resource_prefix: ev+}
  - {name: filesystem, command: [%[1]q, %[3]q, ./data], prefix: fs_}
  - {name: memory, command: [%[1]q, %[4]q], env: [MEMORY_FILE_PATH=memory.jsonl], prefix: mem_}
plugins:
  auth: {tokens: [{token_env: WORLD_TOKEN, user: world}]}
  audit: {file: audit.jsonl}
`, node, server("everything"), server("filesystem"), server("memory"))
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WORLD_TOKEN", "world-token-4f1c9a")
	addr, logs, gw := startGateway(t, hookflow, nil, "-config", file)

	client := exec.Command(node, "testdata/world/client.mjs", "http://"+addr+"/mcp", data)
	client.Env = append(os.Environ(), "HOOKFLOW_WORLD="+world)
	var stderr bytes.Buffer
	client.Stderr = &stderr
	stdin, err := client.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Process.Kill(); _ = client.Wait() })
	type line struct {
		Check, Detail, Wait string
		OK                  bool
	}
	results := map[string]line{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		var l line
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			t.Fatalf("the client printed %q", lines.Text())
		}
		if l.Wait == "kill memory" {
			killNewestChild(t, gw.Process.Pid, "server-memory")
			if _, err := stdin.Write([]byte("\n")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		results[l.Check] = l
	}
	if err := client.Wait(); err != nil {
		t.Errorf("the client: %v\n%s", err, stderr.String())
	}
	for _, name := range worldChecks {
		t.Run(name, func(t *testing.T) {
			r, ok := results[name]
			switch {
			case !ok:
				t.Errorf("the client did not report it (stderr: %s)", stderr.String())
			case r.OK:
				t.Log(r.Detail)
			default:
				t.Errorf("%s\ngateway log:\n%s", r.Detail, logs.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "audit.jsonl")); err != nil {
		t.Errorf("the audit file is not next to the configuration file: %v", err)
	}
}

// killNewestChild kills the most recently started child process of ppid
// whose command line contains name: the upstream process of the newest
// client session.
func killNewestChild(t *testing.T, ppid int, name string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	newest, newestStart := 0, uint64(0)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's name, which is in parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 20 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !bytes.Contains(cmdline, []byte(name)) {
			continue
		}
		if start, _ := strconv.ParseUint(f[19], 10, 64); newest == 0 || start >= newestStart {
			newest, newestStart = pid, start
		}
	}
	if newest == 0 {
		t.Fatalf("no child process of %d runs %s", ppid, name)
	}
	if err := syscall.Kill(newest, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}
