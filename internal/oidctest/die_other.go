//go:build !linux

package oidctest

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal.
func dieWithParent(*exec.Cmd) {}
