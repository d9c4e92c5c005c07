package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The tests build throw-away modules that depend on this repository through
// a replace directive, with this module's requirements and go.sum, so that
// every dependency comes from the module cache.

var (
	rootOnce sync.Once
	rootDir  string
	rootMod  string // the test module's go.mod
	rootSum  []byte
	rootErr  error
)

// testModule returns the go.mod and go.sum of a test module.
func testModule(t testing.TB) (gomod string, gosum []byte) {
	t.Helper()
	rootOnce.Do(func() {
		rootDir, rootErr = filepath.Abs(filepath.Join("..", ".."))
		if rootErr != nil {
			return
		}
		var mod []byte
		if mod, rootErr = os.ReadFile(filepath.Join(rootDir, "go.mod")); rootErr != nil {
			return
		}
		if rootSum, rootErr = os.ReadFile(filepath.Join(rootDir, "go.sum")); rootErr != nil {
			return
		}
		var b strings.Builder
		b.WriteString("module example.com/test\n\ngo 1.26.0\n\nrequire github.com/hookflow/hookflow v0.0.0\n\n")
		b.WriteString("replace github.com/hookflow/hookflow => " + rootDir + "\n")
		// Copy the repository's requirements (not its tool directives).
		sc := bufio.NewScanner(bytes.NewReader(mod))
		in := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case in:
				b.WriteString(line + "\n")
				if strings.TrimSpace(line) == ")" {
					in = false
				}
			case strings.HasPrefix(line, "require ("):
				b.WriteString("\n" + line + "\n")
				in = true
			case strings.HasPrefix(line, "require "):
				b.WriteString(line + "\n")
			}
		}
		rootMod = b.String()
	})
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return rootMod, rootSum
}

// newModule writes a test module with the given files (paths relative to
// the module root) into a new temporary directory and returns it.
func newModule(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	gomod, gosum := testModule(t)
	writeFiles(t, dir, map[string][]byte{"go.mod": []byte(gomod), "go.sum": gosum})
	writeFiles(t, dir, files)
	return dir
}

func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goEnv is the go command's environment for test modules: no workspace, and
// go.mod may be completed from the module cache.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "GOWORK=") {
			env = append(env, kv)
		}
	}
	return append(env, "GOFLAGS=-mod=mod", "GOWORK=off")
}

// goCmd runs the go command in dir and returns its combined output.
func goCmd(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// hookgen runs the command in-process in dir.
func hookgen(t testing.TB, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runIn(dir, goEnv(), args, &o, &e)
	return code, o.String(), e.String()
}

// generatedFiles returns every hookgen_gen.go under dir, by slash path
// relative to dir.
func generatedFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "hookgen_gen.go" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			out[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
