package proctest

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Stop sends pid SIGSTOP and waits, up to wait, until every thread of the
// process is stopped: the signal takes effect after kill returns, and a
// process not stopped yet still answers. Where /proc does not say (not
// Linux, or the process's entries cannot be read), it returns once the
// signal is sent. Send SIGCONT to resume it.
func Stop(pid int, wait time.Duration) error {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	for !stopped(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("proctest: process %d is not stopped %v after SIGSTOP", pid, wait)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// stopped reports whether every thread of the process pid is stopped, or
// true when /proc cannot tell.
func stopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		// "pid (comm) state …": the state follows the command, which may
		// hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}
