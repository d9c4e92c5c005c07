package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/proctest"
)

// build builds the package at pkg (a path from the repository's root)
// into the test's temporary directory.
func build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, "../../"+pkg).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// startUpstream runs the gateway tests' upstream over streamable HTTP at
// addr ("127.0.0.1:0" for a free port) and returns its URL.
func startUpstream(t *testing.T, bin, addr string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, "-http", "-addr", addr)
	return startListening(t, cmd, "listening "), cmd
}

// startListening starts cmd, a server that prints prefix and where it
// listens as its first line of output, and returns the rest of that line;
// the process is killed with the test.
func startListening(t *testing.T, cmd *exec.Cmd, prefix string) string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	where, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if err != nil || !ok {
		t.Fatalf("%s said %q, %v", filepath.Base(cmd.Path), line, err)
	}
	return where
}

// startGateway runs hookflow gateway with args and returns the address
// its log gives the health endpoints, its log, and the process, which is
// killed with the test.
func startGateway(t *testing.T, hookflow string, stdin *os.File, args ...string) (addr string, logs *plugintest.Buffer, cmd *exec.Cmd) {
	t.Helper()
	cmd = exec.Command(hookflow, append([]string{"gateway"}, args...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	logs = &plugintest.Buffer{}
	lines := bufio.NewScanner(stderr)
	for addr == "" && lines.Scan() {
		logs.Write(append(lines.Bytes(), '\n'))
		if strings.Contains(lines.Text(), "serving health") {
			_, rest, _ := strings.Cut(lines.Text(), " addr=")
			addr, _, _ = strings.Cut(rest, " ")
		}
	}
	if addr == "" {
		t.Fatalf("the gateway serves no health endpoints:\n%s", logs.String())
	}
	go func() {
		for lines.Scan() {
			logs.Write(append(lines.Bytes(), '\n'))
		}
	}()
	return addr, logs, cmd
}

// healthBody is the readiness report, as a probe reads it.
type healthBody struct {
	Status    string
	Upstreams []struct {
		Name, State, Error string
		Reconnects         int
	}
}

// get asks url and returns the status code and the body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// ready asks url, a readiness endpoint, and decodes its report.
func ready(t *testing.T, url string) (int, healthBody) {
	t.Helper()
	code, body := get(t, url)
	var h healthBody
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("readiness body %q: %v", body, err)
	}
	return code, h
}

// waitFor asks check until it returns true, for at most a minute (a
// bound on a hang, not a timing assertion).
func waitFor(t *testing.T, what string, logs *plugintest.Buffer, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s; the gateway's log:\n%s", what, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGatewayHealth serves the health endpoints on the MCP listener, in
// front of auth: probes need no token while MCP requests do. Readiness
// follows the upstream: 200 while it is up, 503 once it is killed, 200
// again once it listens again.
func TestGatewayHealth(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	url, up := startUpstream(t, upstream, "127.0.0.1:0")
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := "serve: {http: '127.0.0.1:0', health: /healthz}\n" +
		"upstreams:\n  - {name: up, url: '" + url + "'}\n" +
		"plugins:\n  auth:\n    tokens: [{token: secret, user: ops}]\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, logs, _ := startGateway(t, hookflow, nil, "-config", config)
	base := "http://" + addr
	if want := config + ":6:15: plugins.auth.tokens[0].token is deprecated"; !strings.Contains(logs.String(), want) {
		t.Errorf("the start-up log does not warn %q:\n%s", want, logs.String())
	}

	if code, body := get(t, base+"/healthz/live"); code != 200 || body != `{"status":"live"}`+"\n" {
		t.Errorf("live: %d %q", code, body)
	}
	if code, h := ready(t, base+"/healthz/ready"); code != 200 || h.Status != "up" || len(h.Upstreams) != 1 || h.Upstreams[0].Name != "up" {
		t.Errorf("ready: %d %+v", code, h)
	}
	if code, _ := get(t, base+"/mcp"); code != http.StatusUnauthorized {
		t.Errorf("MCP without a token: %d, want 401 (auth still guards every other path)", code)
	}

	upAddr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	if err := up.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = up.Wait()
	waitFor(t, "readiness to fail", logs, func() bool {
		code, h := ready(t, base+"/healthz/ready")
		return code == 503 && h.Status == "down" && h.Upstreams[0].State != "up" && h.Upstreams[0].Error != ""
	})
	if code, _ := get(t, base+"/healthz/live"); code != 200 {
		t.Errorf("live while the upstream is down: %d, want 200", code)
	}

	startUpstream(t, upstream, upAddr)
	waitFor(t, "readiness to come back", logs, func() bool {
		code, h := ready(t, base+"/healthz/ready")
		return code == 200 && h.Status == "up" && h.Upstreams[0].Reconnects == 1
	})
}

// TestGatewayHealthAddr serves MCP over stdio and the health endpoints
// on a listener of their own, opened before the upstreams connect: while
// the upstream's command waits, the gateway is live and not ready.
func TestGatewayHealthAddr(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	dir := t.TempDir()
	// The upstream's command waits for a line on a FIFO before it runs
	// the upstream: the test decides when the gateway can connect.
	fifo := filepath.Join(dir, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "gateway.yaml")
	yaml := "serve: {stdio: true, health_addr: '127.0.0.1:0'}\n" +
		"upstreams:\n  - name: up\n    command: [sh, -c, 'read line < \"$0\" && exec \"$1\"', '" + fifo + "', '" + upstream + "']\n" +
		"    connect_timeout: 10m\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	// Should the test end before the upstream's command read its line.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Write([]byte("go\n"))
			f.Close()
		}
	})
	// The MCP client's side of stdio stays open and silent.
	stdin, keepOpen, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); keepOpen.Close() })
	addr, logs, _ := startGateway(t, hookflow, stdin, "-config", config)
	base := "http://" + addr

	if code, body := get(t, base+"/health/live"); code != 200 || body != `{"status":"live"}`+"\n" {
		t.Errorf("live while starting: %d %q", code, body)
	}
	if code, h := ready(t, base+"/health/ready"); code != 503 || h.Status != "starting" {
		t.Errorf("ready while starting: %d %+v, want 503 starting", code, h)
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "readiness", logs, func() bool {
		code, h := ready(t, base+"/health/ready")
		return code == 200 && h.Status == "up" && len(h.Upstreams) == 1 && h.Upstreams[0].State == "up"
	})
	if code, _ := get(t, base+"/mcp"); code != http.StatusNotFound {
		t.Errorf("another path on the health listener: %d, want 404", code)
	}
}

// TestGatewayDrain sends the gateway SIGTERM with a drain: readiness
// turns 503 "stopping" at once, while MCP requests, of a session opened
// before and of a new one, are still served; a second SIGTERM ends the
// drain, and the process exits 0.
func TestGatewayDrain(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	url, _ := startUpstream(t, upstream, "127.0.0.1:0")
	addr, logs, cmd := startGateway(t, hookflow, nil, "-url", url, "-http", "127.0.0.1:0", "-health", "/healthz", "-drain", "10m")
	base := "http://" + addr
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain-test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connecting: %v\n%s", err, logs.String())
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, when string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
		if err != nil || res.IsError {
			t.Fatalf("echo %s: %v %+v\n%s", when, err, res, logs.String())
		}
	}
	before := connect()
	call(before, "before SIGTERM")
	if code, h := ready(t, base+"/healthz/ready"); code != 200 || h.Status != "up" {
		t.Fatalf("ready before SIGTERM: %d %+v", code, h)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "readiness to say stopping", logs, func() bool {
		code, body := get(t, base+"/healthz/ready")
		return code == 503 && body == `{"status":"stopping"}`+"\n"
	})
	if code, _ := get(t, base+"/healthz/live"); code != 200 {
		t.Errorf("live while draining: %d, want 200", code)
	}
	call(before, "while draining, on a session opened before")
	call(connect(), "while draining, on a new session")
	if !strings.Contains(logs.String(), "draining") {
		t.Errorf("the log does not say it drains:\n%s", logs.String())
	}

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the gateway exited with %v, want 0\n%s", err, logs.String())
		}
	case <-time.After(time.Minute): // a bound on a hang, not a timing assertion
		t.Fatalf("the gateway did not exit after a second SIGTERM\n%s", logs.String())
	}
}

// TestGatewaySessionTimeout abandons a client session without ending it:
// after serve.session_timeout without a request, the gateway closes it,
// and with it the stdio upstream process it ran for that session.
func TestGatewaySessionTimeout(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	addr, logs, cmd := startGateway(t, hookflow, nil, "-command", upstream, "-http", "127.0.0.1:0", "-health", "/healthz", "-session-timeout", "1s")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "abandoned", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("echo: %v %+v\n%s", err, res, logs.String())
	}
	name := filepath.Base(upstream)
	if n := childProcesses(t, cmd.Process.Pid, name); n != 2 {
		t.Fatalf("%d upstream processes while the session is used, want 2 (the gateway's, the session's)", n)
	}
	// The client makes no request from now on.
	waitFor(t, "the abandoned session's upstream process to end", logs, func() bool {
		return childProcesses(t, cmd.Process.Pid, name) == 1
	})
}

// childProcesses counts the live child processes of ppid named comm,
// skipping the test where processes cannot be read.
func childProcesses(t *testing.T, ppid int, comm string) int {
	t.Helper()
	n, err := proctest.Children(ppid, comm)
	if errors.Is(err, proctest.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}
