package ratelimit_test

import (
	"os/exec"
	"syscall"
)

func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
