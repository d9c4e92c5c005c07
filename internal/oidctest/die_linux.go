package oidctest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux kill the launcher when the test binary dies, so a
// timed-out test leaves none behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
