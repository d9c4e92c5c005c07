package command

import (
	"crypto/sha256"
	"encoding/hex"
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

// Identity is what the trust store vouches for, by the command's [Form]:
// a script's content and the interpreter that runs it; a program's
// content and the exact command line; or, for a shell line, the exact
// command line and the shell. Paths are display names: the same content
// at another path (a fresh checkout elsewhere) is the same identity.
type Identity struct {
	// Form is the command's form; "" (FormScript) for a script.
	Form Form `json:"form,omitempty"`
	// Script is the absolute path of the script or program, symlinks
	// resolved; "" for a shell line.
	Script string `json:"script,omitempty"`
	// SHA256 is the hex SHA-256 of the script's or program's content, or
	// of the command line for a shell line.
	SHA256 string `json:"sha256"`
	// Interpreter is the interpreter's or shell's absolute path, "" when
	// the file runs directly (its #! line is part of its content).
	Interpreter string `json:"interpreter,omitempty"`
	// Line is the exact command line, for the program, runner and shell
	// forms, whose arguments decide what runs.
	Line string `json:"line,omitempty"`
	// Files are the files a program's or runner's line names, by content.
	Files []FileSum `json:"files,omitempty"`
}

// String describes the identity for people: what runs, its SHA-256's
// first 16 digits, and for a runner that the code it fetches is not
// covered.
func (id Identity) String() string {
	short := id.SHA256
	if len(short) > 16 {
		short = short[:16]
	}
	switch id.Form {
	case FormShell:
		return fmt.Sprintf("shell line %q (sha256 %s) run by %s", id.Line, short, id.Interpreter)
	case FormProgram:
		return fmt.Sprintf("program %s (sha256 %s) as %q%s", id.Script, short, id.Line, filesText(id.Files))
	case FormRunner:
		return fmt.Sprintf("runner %s (sha256 %s) as %q%s, which fetches code at run time that this trust does not cover", id.Script, short, id.Line, filesText(id.Files))
	case FormHTTP:
		return fmt.Sprintf("http hook POSTing to %s (definition sha256 %s)", strings.TrimPrefix(id.Script, "http:"), short)
	case FormPrompt:
		return fmt.Sprintf("prompt hook %s (prompt and model sha256 %s)", strings.TrimPrefix(id.Script, "prompt:"), short)
	}
	s := fmt.Sprintf("%s (sha256 %s)", id.Script, short)
	if id.Interpreter != "" {
		s += " with " + id.Interpreter
	}
	return s
}

// filesText lists the files of a line for people.
func filesText(files []FileSum) string {
	s := ""
	for _, f := range files {
		s += fmt.Sprintf(" with %s (sha256 %.16s)", f.Path, f.SHA256)
	}
	return s
}

// sameCode reports whether a and b run the same code: same form, content,
// interpreter and line, wherever the file is.
func (id Identity) sameCode(o Identity) bool {
	return id.Form == o.Form && id.SHA256 == o.SHA256 && id.Interpreter == o.Interpreter && id.Line == o.Line &&
		sameSums(id.Files, o.Files)
}

// sameFile reports whether a and b are the same file (or line) run the
// same way, whatever its content.
func (id Identity) sameFile(o Identity) bool {
	return id.Form == o.Form && id.Interpreter == o.Interpreter && id.Script == o.Script && id.Script != "" &&
		(id.Form == FormScript || id.Line == o.Line)
}

// TrustEntry is one trusted identity in a [TrustStore].
type TrustEntry struct {
	Identity
	// Command is the command line the script was trusted for, for people
	// reading the store.
	Command string `json:"command,omitempty"`
	// TrustedAt is when it was trusted.
	TrustedAt time.Time `json:"trusted_at"`
}

// TrustStatus says whether the trust store vouches for a hook.
type TrustStatus uint8

const (
	// Untrusted: the store knows neither this code nor this file.
	Untrusted TrustStatus = iota
	// Trusted: the store trusts this code (content, interpreter and
	// line), at this path or another.
	Trusted
	// Changed: the store trusts the script with this interpreter, but with
	// other content: it was edited since it was trusted.
	Changed
)

// String returns "untrusted", "trusted" or "changed".
func (s TrustStatus) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed"
	}
	return "untrusted"
}

// TrustStore is the file of trusted hook scripts, a JSON document
//
//	{"version": 1, "trusted": [{"script": "/srv/hooks/guard.sh", "sha256": "…", "interpreter": "/usr/bin/bash", "command": "…", "trusted_at": "…"}]}
//
// written by "hookflow hooks trust" and read at Start. The file must not be
// writable by its group or others: whoever can write it decides what
// runs.
type TrustStore struct {
	// Path is the store's file.
	Path string
	// Entries are the trusted identities, in the order they were added.
	Entries []TrustEntry
}

type trustFile struct {
	Version int          `json:"version"`
	Trusted []TrustEntry `json:"trusted"`
}

// DefaultTrustStore returns the trust store's default path,
// $XDG_CONFIG_HOME/hookflow/trusted-hooks.json (on Linux, ~/.config/…).
func DefaultTrustStore() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "."
	}
	return filepath.Join(dir, "hookflow", "trusted-hooks.json")
}

// LoadTrustStore reads the store at path; a missing file is an empty store.
func LoadTrustStore(path string) (*TrustStore, error) {
	s := &TrustStore{Path: path}
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
	if err := checkNotShared(path, fi); err != nil {
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
func (s *TrustStore) Status(id Identity) TrustStatus {
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
func (s *TrustStore) Trust(id Identity, command string, now time.Time) bool {
	if s.Status(id) == Trusted {
		return false
	}
	s.Entries = slices.DeleteFunc(s.Entries, func(e TrustEntry) bool { return e.sameFile(id) })
	s.Entries = append(s.Entries, TrustEntry{Identity: id, Command: command, TrustedAt: now.UTC().Truncate(time.Second)})
	return true
}

// Revoke removes the entries whose script path is match (symlinks resolved
// when it exists) or whose SHA-256 starts with match (at least 8 hex
// digits), and returns them.
func (s *TrustStore) Revoke(match string) []TrustEntry {
	path := match
	if abs, err := filepath.Abs(match); err == nil {
		path = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			path = real
		}
	}
	isHash := len(match) >= 8 && strings.Trim(strings.ToLower(match), "0123456789abcdef") == ""
	var removed []TrustEntry
	s.Entries = slices.DeleteFunc(s.Entries, func(e TrustEntry) bool {
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
func (s *TrustStore) Save() error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	entries := s.Entries
	if entries == nil {
		entries = []TrustEntry{}
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

// UpdateTrustStore loads the store at path, lets fn change it and saves it
// when fn reports a change, holding an exclusive lock (a lock file beside
// the store) so that two updates never lose each other's entries.
func UpdateTrustStore(path string, fn func(*TrustStore) (changed bool, err error)) error {
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
	s, err := LoadTrustStore(path)
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
// file's writer).
type fileStamp struct {
	dev, ino    uint64
	size        int64
	mtime, ctim int64
}

func stampOf(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctim: st.Ctim.Nano()}
}

// hashFile returns the hex SHA-256 of the file at path and its stamp, taken
// from the open file.
func hashFile(path string) (string, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fileStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fileStamp{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fileStamp{}, err
	}
	return hex.EncodeToString(h.Sum(nil)), stampOf(fi), nil
}

// IdentityOf returns the identity of script run by interpreter (an
// absolute path, or "" when the script runs directly), as a server would
// record it: the script's path with symlinks resolved and its SHA-256.
// Both files must be regular and writable by their owner only.
func IdentityOf(script, interpreter string) (Identity, error) {
	abs, err := filepath.Abs(script)
	if err != nil {
		return Identity{}, err
	}
	real, err := checkFile(abs, interpreter == "")
	if err != nil {
		return Identity{}, fmt.Errorf("the script %v", strings.TrimPrefix(err.Error(), "runs "))
	}
	if interpreter != "" {
		if !filepath.IsAbs(interpreter) {
			return Identity{}, fmt.Errorf("the interpreter %q is not an absolute path", interpreter)
		}
		if _, err := checkFile(interpreter, true); err != nil {
			return Identity{}, fmt.Errorf("the interpreter %v", strings.TrimPrefix(err.Error(), "runs "))
		}
		interpreter = filepath.Clean(interpreter)
	}
	sum, _, err := hashFile(real)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Script: real, SHA256: sum, Interpreter: interpreter}, nil
}
