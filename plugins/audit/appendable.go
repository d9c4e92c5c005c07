package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkAppendable checks, without creating or writing anything, that the
// file at path can be opened for appending: it is writable if it exists,
// and otherwise its directory is.
func checkAppendable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil:
		if !writable(path) {
			return fmt.Errorf("%s is not writable", path)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	info, err = os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case !writable(dir):
		return fmt.Errorf("directory %s is not writable: %s cannot be created", dir, filepath.Base(path))
	}
	return nil
}

// statDir reports whether path is a directory.
func statDir(path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return info.IsDir(), nil
}
