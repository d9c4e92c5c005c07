package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// CheckFile returns path with symlinks resolved, after checking that it
// is a regular file that only its owner may write, in a directory only
// its owner may write (or a sticky one), and, when exe, executable.
func CheckFile(path string, exe bool) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("runs %s, which does not exist", path)
		}
		return "", fmt.Errorf("runs %s: %v", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("runs %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("runs %s, which is not a regular file", path)
	}
	if err := notShared(real, fi); err != nil {
		return "", fmt.Errorf("%w%s", err, umaskHint)
	}
	// Whoever may write the directory may replace the file.
	dir := filepath.Dir(real)
	if di, err := os.Stat(dir); err == nil && di.Mode().Perm()&0o022 != 0 && di.Mode()&fs.ModeSticky == 0 {
		return "", fmt.Errorf("%s is in %s, which its group or others may write (mode %v): anyone who can replace the file decides what the server runs; chmod go-w %s%s", path, dir, di.Mode().Perm(), dir, umaskHint)
	}
	if exe && fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("runs %s, which is not executable: chmod +x it, or run it with an interpreter (bash %s)", path, path)
	}
	return real, nil
}

// umaskHint says what to change when a whole checkout is group-writable,
// as a clone made under umask 002 is.
const umaskHint = " (a checkout made under umask 002 is group-writable throughout: chmod -R go-w the checkout, and clone with umask 022)"

// notShared refuses a file that others than its owner may write: anyone
// who can change it could change what the server runs.
func notShared(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or others (mode %v): anyone who can edit it decides what the server runs; chmod go-w %s", path, fi.Mode().Perm(), path)
	}
	return nil
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

// maxArgFiles bounds how many files of one command line are hashed.
const maxArgFiles = 16

// Pinned is a command's identity as it was hashed, with the stat of each
// of its files, so that a run re-checks them cheaply: a file whose stat
// changed is hashed again. Its methods are safe for concurrent use.
type Pinned struct {
	id     Identity
	mu     sync.Mutex
	script fileStamp
	files  []fileStamp
}

// Pin hashes what a command of form vouches for and returns its identity:
// for a shell line, line; else the file script (run by interpreter, ""
// when it runs directly) and, for a program or runner, line and the
// regular files of args (absolute, or relative to dir), each of which
// only its owner may write.
func Pin(form Form, script, interpreter, line string, args []string, dir string) (*Pinned, error) {
	if form == FormShell {
		return &Pinned{id: Identity{Form: FormShell, SHA256: lineHash(line), Interpreter: interpreter, Line: line}}, nil
	}
	sum, stamp, err := hashFile(script)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", script, err)
	}
	p := &Pinned{id: Identity{Form: form, Script: script, SHA256: sum, Interpreter: interpreter}, script: stamp}
	if form == FormScript {
		return p, nil
	}
	p.id.Line = line
	for _, a := range args {
		path := a
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // not a file: an option, a word, a path to come
		}
		if len(p.files) == maxArgFiles {
			return nil, fmt.Errorf("names more than %d files: put them in a script", maxArgFiles)
		}
		real, err := CheckFile(path, false)
		if err != nil {
			return nil, err
		}
		sum, st, err := hashFile(real)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %v", real, err)
		}
		p.id.Files, p.files = append(p.id.Files, FileSum{Path: real, SHA256: sum}), append(p.files, st)
	}
	return p, nil
}

// Identity returns the identity p pinned.
func (p *Pinned) Identity() Identity { return p.id }

// Verify checks that the files of p's identity are still those it
// hashed, and returns why not, or "": retrust is the command that
// trusts them again, for the message.
func (p *Pinned) Verify(retrust string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, f := range p.id.Files {
		if msg := verifyFile(f, &p.files[i], "the file %s its command names", retrust); msg != "" {
			return msg
		}
	}
	if p.id.Script == "" {
		return "" // a shell line: its identity is the line, fixed at start
	}
	return verifyFile(FileSum{Path: p.id.Script, SHA256: p.id.SHA256}, &p.script, "its script %s", retrust)
}

// verifyFile re-checks one file, hashing it when its stat is not
// *stamp, which it then updates.
func verifyFile(f FileSum, stamp *fileStamp, what, retrust string) string {
	fi, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v); it did not run", fmt.Sprintf(what, f.Path), err)
	}
	if stampOf(fi) == *stamp {
		return ""
	}
	name := fmt.Sprintf(what, f.Path)
	sum, st, err := hashFile(f.Path)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v); it did not run", name, err)
	}
	if sum != f.SHA256 {
		return fmt.Sprintf("%s changed since it was trusted (sha256 was %s, is %s), so it did not run; review it, then run: %s",
			name, f.SHA256, sum, retrust)
	}
	*stamp = st
	return ""
}
