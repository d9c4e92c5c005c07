package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
)

// A child that leaves the hook's process group with setsid is killed
// when the hook ends, by the run's cgroup where cgroups can be made, and
// by its marker elsewhere; a group kill alone misses it.
func TestReapSetsidChild(t *testing.T) {
	t.Parallel()
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid program")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	tests := []struct {
		name    string
		cgroups bool
	}{
		{"cgroup", true},
		{"marker", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb, err := sandbox.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			if why := sb.Reap(tt.cgroups); tt.cgroups && why != "" {
				t.Skipf("no cgroup v2 to use here: %s", why)
			}
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "escaped.pid")
			script := setsid + ` ` + bash + ` -c 'echo $$ > ` + pidFile + `.tmp; mv ` + pidFile + `.tmp ` + pidFile + `; exec sleep 300' &
while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done
`
			p := sandbox.Process{Path: bash, Argv: []string{"bash", "-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}, Dir: dir,
				Timeout: 10 * time.Second, Grace: 200 * time.Millisecond, MaxOutput: 1 << 16}
			res, err := sb.Run(context.Background(), nil, p, nil)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("the hook: %v, %+v, stderr %s", err, res, res.Stderr)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			if pid <= 0 {
				t.Fatalf("bad pid %q", data)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if !gone(pid) {
				t.Errorf("the setsid child %d outlived its hook", pid)
			}
		})
	}
}

// gone reports whether pid has exited: it is no process, or a zombie
// waiting for its parent.
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z' || data[i+2] == 'X'
}
