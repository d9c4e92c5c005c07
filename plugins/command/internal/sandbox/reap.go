package sandbox

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A hook's process group is killed when the hook ends, but a child that
// called setsid (or setpgid) left the group, and a group kill misses it.
// A reaper finds such processes by another way, one per machine:
//
//   - reapCgroup: each run starts in a cgroup v2 of its own, made under
//     the server's cgroup; when the hook ends, cgroup.kill kills every
//     process in it, whatever its group or session, and the cgroup is
//     removed. Used where the server may make cgroups there.
//   - reapMarker: each run's environment carries a variable of its own
//     (markerVar); when the hook ends, /proc is walked and every process
//     that carries it is killed (through a pidfd, so a reused PID is never
//     hit). A process that leaves the group and also clears its
//     environment escapes this way.
type reapMode uint8

const (
	reapMarker reapMode = iota
	reapCgroup
)

// String returns "cgroup" or "proc".
func (m reapMode) String() string {
	if m == reapCgroup {
		return "cgroup"
	}
	return "proc"
}

// markerVar names the variable that marks the processes of one run.
const markerVar = "HOOKFLOW_HOOK_RUN"

// reaper kills what a run leaves outside its process group.
type reaper struct {
	mode reapMode
	// parent is the cgroup directory runs' cgroups are made in, for
	// reapCgroup.
	parent string
}

// newReaper returns the reaper this machine allows: reapCgroup when a
// cgroup can be made under the server's cgroup v2 and a process put in
// it, else reapMarker. The second result says why not cgroups, for the
// log.
func newReaper() (*reaper, string) {
	dir, err := ownCgroup()
	if err != nil {
		return &reaper{mode: reapMarker}, err.Error()
	}
	r := &reaper{mode: reapCgroup, parent: dir}
	probe, err := r.prepare()
	if err != nil {
		return &reaper{mode: reapMarker}, err.Error()
	}
	probe.close()
	return r, ""
}

// ownCgroup returns the directory of the server's cgroup v2.
func ownCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("no cgroups: %v", err)
	}
	var rel string
	found := false
	for line := range strings.Lines(string(data)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("the server is not in a cgroup v2")
	}
	mount, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, rel), nil
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted, from
// /proc/self/mountinfo: "id parent major:minor root mountpoint options
// [optional fields] - fstype source superoptions".
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for i, fl := range fields {
			if fl == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return unescapeMount(fields[4]), nil
			}
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runGroup is what one run is reaped by: its cgroup, or its marker.
type runGroup struct {
	mode   reapMode
	dir    string   // the run's cgroup, for reapCgroup
	fd     *os.File // the cgroup's directory, open while the process starts
	marker string   // the marker's value, for reapMarker
}

// prepare makes what one run is reaped by.
func (r *reaper) prepare() (*runGroup, error) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	if r.mode == reapMarker {
		return &runGroup{mode: reapMarker, marker: id}, nil
	}
	dir := filepath.Join(r.parent, "hookflow-"+id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot make a cgroup: %v", err)
	}
	fd, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("cannot open a cgroup: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		fd.Close()
		_ = os.Remove(dir)
		return nil, errors.New("cgroups cannot be killed here (cgroup.kill needs Linux 5.14)")
	}
	return &runGroup{mode: reapCgroup, dir: dir, fd: fd}, nil
}

// group returns what one run is reaped by: a cgroup, or a marker when
// no cgroup can be made for it.
func (r *reaper) group() *runGroup {
	g, err := r.prepare()
	if err != nil {
		g, _ = (&reaper{mode: reapMarker}).prepare()
	}
	return g
}

// setup adds the run's cgroup or marker to the process about to start.
func (g *runGroup) setup(attr *syscall.SysProcAttr, env []string) []string {
	if g.mode == reapCgroup {
		attr.UseCgroupFD, attr.CgroupFD = true, int(g.fd.Fd())
		return env
	}
	return append(env[:len(env):len(env)], markerVar+"="+g.marker)
}

// started closes what only the start needed.
func (g *runGroup) started() {
	if g.fd != nil {
		g.fd.Close()
		g.fd = nil
	}
}

// sweep kills every process of the run that is still there, in or out
// of its process group, and waits (up to a second) until none is left.
func (g *runGroup) sweep() {
	if g.mode == reapCgroup {
		_ = os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0)
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if procs, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs")); err != nil || len(bytes.TrimSpace(procs)) == 0 {
				return
			}
		}
		return
	}
	for range 20 {
		if killMarked(markerVar+"="+g.marker) == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// close removes the run's cgroup. The kernel may call it busy for a
// moment after its last process is gone: the removal is retried, for up
// to a second, without holding up the run.
func (g *runGroup) close() {
	g.started()
	if g.dir == "" {
		return
	}
	if os.Remove(g.dir) == nil {
		return
	}
	go func(dir string) {
		for range 100 {
			time.Sleep(10 * time.Millisecond)
			if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				return
			}
		}
	}(g.dir)
}

// killMarked sends SIGKILL to every live process whose environment holds
// the entry mark and returns how many it found.
func killMarked(mark string) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		if hasEnv(pid, mark) && !zombie(pid) {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			n++
		}
		unix.Close(fd)
	}
	return n
}

// hasEnv reports whether process pid's environment holds the entry mark.
func hasEnv(pid int, mark string) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for entry := range bytes.SplitSeq(data, []byte{0}) {
		if string(entry) == mark {
			return true
		}
	}
	return false
}

// zombie reports whether pid has exited and waits for its parent.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z' || data[i+2] == 'X'
}
