package proctest_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hookflow/hookflow/internal/proctest"
)

func TestChildren(t *testing.T) {
	count := func() int {
		t.Helper()
		n, err := proctest.Children(os.Getpid(), "sleep")
		if errors.Is(err, proctest.ErrUnsupported) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep program: %v", err)
	}
	if got := count(); got != before+1 {
		t.Errorf("with a sleep running: %d children named sleep, want %d", got, before+1)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := count(); got != before {
		t.Errorf("after it ended: %d children named sleep, want %d", got, before)
	}
}

func TestStop(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep program: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := proctest.Stop(cmd.Process.Pid, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if i := bytes.LastIndexByte(b, ')'); i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
		t.Errorf("after Stop: %s, want state T", b)
	}
	if err := proctest.Stop(1<<30, time.Second); err == nil {
		t.Error("Stop of a process that does not exist: no error")
	}
}
