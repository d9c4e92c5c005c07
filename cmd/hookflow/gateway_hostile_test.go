package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestGatewayHostileBodies serves the gateway's MCP endpoint, behind
// auth, to a client holding a valid token that sends one request declaring
// a 64 GiB body, then 16 bodies of 50 MB at once without a declared
// length. The gateway must refuse each (413, or 503 while the bodies in
// flight are full), stay up, and hold no more than 256 MiB over what it
// held before (its peak resident memory, from /proc).
func TestGatewayHostileBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 800 MB over loopback")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the gateway's memory")
	}
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	url, _ := startUpstream(t, upstream, "127.0.0.1:0")
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := "serve: {http: '127.0.0.1:0', health: /healthz}\n" +
		"upstreams:\n  - {name: up, url: '" + url + "'}\n" +
		"plugins:\n  auth:\n    tokens: [{token: secret, user: ops}]\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, logs, cmd := startGateway(t, hookflow, nil, "-config", config)
	idle := peakRSS(t, cmd.Process.Pid)

	const auth = "Authorization: Bearer secret\r\n"
	if status := hostilePost(t, addr, auth+"Content-Length: 68719476736\r\n", false, 100); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body declaring 64 GiB: status %d, want 413", status)
	}
	var wg sync.WaitGroup
	statuses := make([]int, 16)
	for i := range statuses {
		wg.Go(func() { statuses[i] = hostilePost(t, addr, auth+"Transfer-Encoding: chunked\r\n", true, 50<<20) })
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusRequestEntityTooLarge && s != http.StatusServiceUnavailable {
			t.Errorf("chunked body %d: status %d, want 413 or 503", i, s)
		}
	}
	if code, _ := get(t, "http://"+addr+"/healthz/live"); code != http.StatusOK {
		t.Fatalf("the gateway is not live after the hostile bodies (%d); its log:\n%s", code, logs.String())
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("gateway peak RSS: %d MiB idle, %d MiB after the hostile bodies", idle>>20, peak>>20)
	if peak-idle > 256<<20 {
		t.Errorf("the gateway's peak RSS grew by %d MiB; want ≤ 256 MiB", (peak-idle)>>20)
	}
}

// hostilePost sends a POST to the gateway's MCP endpoint with the given
// extra headers and size bytes of body (chunked, or raw), stopping early
// when the gateway answers, and returns the status (0 for no answer).
func hostilePost(t *testing.T, addr, header string, chunked bool, size int) int {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\n%s\r\n", addr, header)
	status := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	chunk := strings.Repeat("a", 32<<10)
	for sent := 0; sent < size; sent += len(chunk) {
		select {
		case s := <-status:
			return s
		default:
		}
		var err error
		if chunked {
			_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk)
		} else {
			_, err = conn.Write([]byte(chunk[:min(len(chunk), size-sent)]))
		}
		if err != nil {
			break // the gateway answered and closed the connection
		}
	}
	if chunked {
		_, _ = conn.Write([]byte("0\r\n\r\n"))
	} else {
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	return <-status
}

// peakRSS returns a process's peak resident memory in bytes (VmHWM).
func peakRSS(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
