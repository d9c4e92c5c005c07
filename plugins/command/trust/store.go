package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

type Entry struct {
	Identity
	// Command is the command line the script was trusted for, for people
	// reading the store.
	Command string `json:"command,omitempty"`
	// TrustedAt is when it was trusted.
	TrustedAt time.Time `json:"trusted_at"`
}

// Status says whether the trust store vouches for a hook.
type Status uint8

const (
	// Untrusted: the store knows neither this code nor this file.
	Untrusted Status = iota
	// Trusted: the store trusts this code (content, interpreter and
	// line), at this path or another.
	Trusted
	// Changed: the store trusts the script with this interpreter, but with
	// other content: it was edited since it was trusted.
	Changed
)

// String returns "untrusted", "trusted" or "changed".
func (s Status) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed"
	}
	return "untrusted"
}

// Store is the file of trusted hook scripts, a JSON document
//
//	{"version": 1, "trusted": [{"script": "/srv/hooks/guard.sh", "sha256": "…", "interpreter": "/usr/bin/bash", "command": "…", "trusted_at": "…"}]}
//
// written by "hookflow hooks trust" and read at Start. The file must not be
// writable by its group or others: whoever can write it decides what
// runs.
type Store struct {
	// Path is the store's file.
	Path string
	// Entries are the trusted identities, in the order they were added.
	Entries []Entry
}

type trustFile struct {
	Version int     `json:"version"`
	Trusted []Entry `json:"trusted"`
}

// DefaultPath returns the trust store's default path,
// $XDG_CONFIG_HOME/hookflow/trusted-hooks.json (on Linux, ~/.config/…).
func DefaultPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "."
	}
	return filepath.Join(dir, "hookflow", "trusted-hooks.json")
}

// Load reads the store at path; a missing file is an empty store.
func Load(path string) (*Store, error) {
	s := &Store{Path: path}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	if err := notShared(path, fi); err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	var tf trustFile
	if err := json.Unmarshal(data, &tf); err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	if tf.Version != 1 {
		return nil, fmt.Errorf("trust store %s: version %d, want 1", path, tf.Version)
	}
	s.Entries = tf.Trusted
	return s, nil
}

// Status says whether the store trusts id: Trusted when an entry has the
// same code (the path is only a display name, so a fresh checkout at
// another path stays trusted), Changed when an entry has the same file
// with other content.
func (s *Store) Status(id Identity) Status {
	st := Untrusted
	for _, e := range s.Entries {
		if e.sameCode(id) {
			return Trusted
		}
		if e.sameFile(id) {
			st = Changed
		}
	}
	return st
}

// Trust adds id (trusted for the command line command) to the store,
// replacing earlier entries for the same file run the same way. It
// reports whether the store changed.
func (s *Store) Trust(id Identity, command string, now time.Time) bool {
	if s.Status(id) == Trusted {
		return false
	}
	s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool { return e.sameFile(id) })
	s.Entries = append(s.Entries, Entry{Identity: id, Command: command, TrustedAt: now.UTC().Truncate(time.Second)})
	return true
}

// Revoke removes the entries whose script path is match (symlinks resolved
// when it exists) or whose SHA-256 starts with match (at least 8 hex
// digits), and returns them.
func (s *Store) Revoke(match string) []Entry {
	path := match
	if abs, err := filepath.Abs(match); err == nil {
		path = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			path = real
		}
	}
	isHash := len(match) >= 8 && strings.Trim(strings.ToLower(match), "0123456789abcdef") == ""
	var removed []Entry
	s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool {
		hit := e.Script == path || e.Script == match || (isHash && strings.HasPrefix(e.SHA256, strings.ToLower(match)))
		if hit {
			removed = append(removed, e)
		}
		return hit
	})
	return removed
}

// Save writes the store to its file atomically (a temporary file renamed
// over it), with mode 0600, creating its directory (0700) if needed.
func (s *Store) Save() error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	entries := s.Entries
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(trustFile{Version: 1, Trusted: entries}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".trusted-hooks-*.json")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// Update loads the store at path, lets fn change it and saves it
// when fn reports a change, holding an exclusive lock (a lock file beside
// the store) so that two updates never lose each other's entries.
func Update(path string, fn func(*Store) (changed bool, err error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("trust store: locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	s, err := Load(path)
	if err != nil {
		return err
	}
	changed, err := fn(s)
	if err != nil || !changed {
		return err
	}
	return s.Save()
}

// fileStamp is what stat says of a file; an unchanged stamp means an
// unchanged content, without reading it (ctime cannot be set back by the
