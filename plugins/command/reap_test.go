package command

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	cg, why := newReaper()
	tests := []struct {
		name string
		reap *reaper
		skip string
	}{
		{"cgroup", cg, why},
		{"marker", &reaper{mode: reapMarker}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.skip != "" {
				t.Skipf("no cgroup v2 to use here: %s", tt.skip)
			}
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "escaped.pid")
			script := setsid + ` ` + bash + ` -c 'echo $$ > ` + pidFile + `.tmp; mv ` + pidFile + `.tmp ` + pidFile + `; exec sleep 300' &
while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done
`
			sp := spawn{path: bash, argv: []string{"bash", "-c", script}, env: []string{"PATH=" + os.Getenv("PATH")}, dir: dir,
				timeout: 10 * time.Second, grace: 200 * time.Millisecond, maxOutput: 1 << 16, reap: tt.reap}
			res := sp.run(context.Background(), nil)
			if res.startErr != nil || res.code != 0 {
				t.Fatalf("the hook: %+v, stderr %s", res, res.stderr)
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
			if !zombie(pid) {
				t.Errorf("the setsid child %d outlived its hook", pid)
			}
		})
	}
}
