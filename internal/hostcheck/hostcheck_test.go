package hostcheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/hostcheck"
)

// TestProgramAndDir checks what a missing program or directory reads as:
// a name looked up on PATH, a slashed path relative to the directory.
func TestProgramAndDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for none
	}{
		{"on PATH", hostcheck.Program("go", ""), ""},
		{"not on PATH", hostcheck.Program("no-such-program-xyz", ""), `program "no-such-program-xyz": executable file not found in $PATH`},
		{"relative to dir", hostcheck.Program("./f", dir), ""},
		{"missing from dir", hostcheck.Program("./g", dir), `program "./g" (` + filepath.Join(dir, "g") + `): no such file or directory`},
		{"a directory", hostcheck.Dir(dir), ""},
		{"no directory", hostcheck.Dir(filepath.Join(dir, "no")), "directory " + filepath.Join(dir, "no") + " does not exist"},
		{"a file", hostcheck.Dir(file), file + " is not a directory"},
	} {
		if (tc.err == nil) != (tc.want == "") || tc.err != nil && !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}
