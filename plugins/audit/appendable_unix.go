//go:build unix

package audit

import "golang.org/x/sys/unix"

// writable reports whether the process may write to the file at path, or
// create files in the directory at path.
func writable(path string) bool {
	mode := uint32(unix.W_OK)
	if fi, err := statDir(path); err == nil && fi {
		mode |= unix.X_OK
	}
	return unix.Access(path, mode) == nil
}
