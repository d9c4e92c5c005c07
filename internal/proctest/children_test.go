package proctest_test

import (
	"errors"
	"os"
	"os/exec"
	"testing"

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
