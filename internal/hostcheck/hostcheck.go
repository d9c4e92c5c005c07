// Package hostcheck checks what a configuration names on this machine, as
// starting it would find it, without starting anything: a program and
// the directory it runs in. The gateway's loader checks its upstreams
// with it, and the plugins that start commands (intercept's hosts) their
// own.
package hostcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Program checks that prog is found as starting it in dir finds it: a
// name on $PATH, or, when it has a slash, the executable file at that
// path, relative to dir.
func Program(prog, dir string) error {
	path := prog
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) && dir != "" {
		path = filepath.Join(dir, prog)
	}
	_, err := exec.LookPath(path)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var ee *exec.Error
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &ee):
		err = ee.Err
	}
	if path != prog {
		return fmt.Errorf("program %q (%s): %v", prog, path, err)
	}
	return fmt.Errorf("program %q: %v", prog, err)
}

// Dir checks that dir is a directory.
func Dir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}
