package command

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// FileSum is a file that a program's command line names (python3
// guard.py, where python3 is no interpreter of [Config.Interpreters]), by
// its content: what the program reads may be code, so the trust of the
// line covers it too.
type FileSum struct {
	// Path is the file's absolute path, symlinks resolved: a display
	// name, as Identity.Script is.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of its content.
	SHA256 string `json:"sha256"`
}

// maxArgFiles bounds how many files of one command line are hashed.
const maxArgFiles = 16

// argFiles hashes the regular files args name (absolute, or relative to
// dir), each of which only its owner may write.
func argFiles(args []string, dir string) ([]FileSum, []fileStamp, error) {
	var sums []FileSum
	var stamps []fileStamp
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // not a file: an option, a word, a path to come
		}
		if len(sums) == maxArgFiles {
			return nil, nil, fmt.Errorf("names more than %d files: put them in a script", maxArgFiles)
		}
		real, err := checkFile(p, false)
		if err != nil {
			return nil, nil, err
		}
		sum, st, err := hashFile(real)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %v", real, err)
		}
		sums, stamps = append(sums, FileSum{Path: real, SHA256: sum}), append(stamps, st)
	}
	return sums, stamps, nil
}

// sameSums reports whether a and b name files of the same contents, in
// order, wherever they are.
func sameSums(a, b []FileSum) bool {
	return slices.EqualFunc(a, b, func(x, y FileSum) bool { return x.SHA256 == y.SHA256 })
}

// argCheck re-checks, before each run, the files a program's line names:
// a file whose stat changed is hashed again.
type argCheck struct {
	mu     sync.Mutex
	stamps []fileStamp
}

// verify returns why a file of sums changed since it was trusted, or "".
func (a *argCheck) verify(sums []FileSum, trust string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, f := range sums {
		fi, err := os.Stat(f.Path)
		if err != nil {
			return fmt.Sprintf("the file %s its command names cannot be read (%v); it did not run", f.Path, err)
		}
		if stampOf(fi) == a.stamps[i] {
			continue
		}
		sum, st, err := hashFile(f.Path)
		if err != nil {
			return fmt.Sprintf("the file %s its command names cannot be read (%v); it did not run", f.Path, err)
		}
		if sum != f.SHA256 {
			return fmt.Sprintf("the file %s its command names changed since it was trusted (sha256 was %s, is %s), so it did not run; review it, then run: %s",
				f.Path, f.SHA256, sum, trust)
		}
		a.stamps[i] = st
	}
	return ""
}
