package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// rotatingFile appends lines to a file and rotates it by size: when a line
// would take the file past max bytes, path.N-1 becomes path.N (the oldest
// backup is overwritten), …, path becomes path.1, and a new path is
// started. Only the plugin's goroutine uses it.
type rotatingFile struct {
	path    string
	max     int64
	backups int
	f       *os.File
	size    int64
}

func openRotatingFile(path string, max int64, backups int) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max, backups: backups}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	r.f, r.size = f, st.Size()
	return nil
}

// write appends line, which is one whole JSON line: a line is never split
// across two files.
func (r *rotatingFile) write(line []byte) error {
	if r.f == nil { // a rotation failed to reopen: try again
		if err := r.open(); err != nil {
			return err
		}
	}
	if r.size > 0 && r.size+int64(len(line)) > r.max {
		if err := r.rotate(); err != nil {
			return err
		}
	}
	n, err := r.f.Write(line)
	r.size += int64(n)
	return err
}

func (r *rotatingFile) rotate() error {
	err := r.f.Close()
	r.f = nil
	for i := r.backups - 1; i >= 1; i-- {
		if e := os.Rename(r.backup(i), r.backup(i+1)); e != nil && !errors.Is(e, fs.ErrNotExist) {
			err = errors.Join(err, e)
		}
	}
	if e := os.Rename(r.path, r.backup(1)); e != nil && !errors.Is(e, fs.ErrNotExist) {
		err = errors.Join(err, e)
	}
	if e := r.open(); e != nil {
		return errors.Join(err, e)
	}
	return err
}

func (r *rotatingFile) backup(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

func (r *rotatingFile) close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
