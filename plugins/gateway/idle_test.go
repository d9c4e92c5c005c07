package gateway_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestIdleTimeout gives a stdio upstream a short IdleTimeout: the process
// of a client session that stopped calling ends, and that session's next
// call starts a new one and succeeds; the process of a session whose call
// is in flight all along stays.
func TestIdleTimeout(t *testing.T) {
	up := stdio("up")
	up.IdleTimeout = 20 * time.Millisecond
	srv, _ := serve(t, nil, up)
	idler, busy := connect(t, srv, nil), connect(t, srv, nil)
	pid := func(cs *mcp.ClientSession) int {
		t.Helper()
		s, isErr := call(t, cs, "pid", nil)
		n, err := strconv.Atoi(s)
		if isErr || err != nil {
			t.Fatalf("pid: %q", s)
		}
		return n
	}
	busyPid := pid(busy)
	dir := t.TempDir()
	ready, release := filepath.Join(dir, "ready"), filepath.Join(dir, "release")
	done := make(chan error, 1)
	go func() {
		_, err := busy.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_file", Arguments: map[string]any{"path": release, "ready": ready}})
		done <- err
	}()
	eventually(t, "the busy session's call to start", func() bool { _, err := os.Stat(ready); return err == nil })
	idlePid := pid(idler)
	eventually(t, "the idle session's process to end", func() bool {
		return errors.Is(syscall.Kill(idlePid, 0), syscall.ESRCH)
	})
	if again := pid(idler); again == idlePid {
		t.Errorf("the idle session's next call went to process %d, which ended", again)
	}
	if err := syscall.Kill(busyPid, 0); err != nil {
		t.Errorf("the process of the session with a call in flight: %v", err)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the call in flight while the other session idled: %v", err)
	}
}
