package proctest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ErrUnsupported is the error of Children on a system without /proc.
var ErrUnsupported = errors.New("proctest: processes are read from /proc, on Linux only")

// Children counts the live child processes of ppid whose command name
// (the kernel's, at most 15 bytes of the program's file name) is comm.
// Zombies, processes that ended and were not waited for, do not count.
func Children(ppid int, comm string) (int, error) {
	if runtime.GOOS != "linux" {
		return 0, ErrUnsupported
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	n := 0
	want := strconv.Itoa(ppid)
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process ended meanwhile
		}
		// "pid (comm) state ppid …"; comm may hold spaces and parentheses.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if s[open+1:end] == comm && len(f) > 1 && f[0] != "Z" && f[1] == want {
			n++
		}
	}
	return n, nil
}
