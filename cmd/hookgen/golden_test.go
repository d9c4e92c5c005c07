package main

import (
	"bytes"
	"flag"
	"go/ast"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/engine"
)

var update = flag.Bool("update", false, "rewrite the want/ files of testdata/*.txtar from hookgen's output")

// TestGolden runs hookgen on every testdata/*.txtar case.
//
// A case is an input module (every file not under want/; the test writes
// go.mod and go.sum) and what hookgen must produce from ./...:
//
//   - want/<dir>/hookgen_gen.go: the generated file of each package (no other
//     package may get one);
//   - want/errors.txt: hookgen's stderr, "file.go:line:col: message" lines
//     (absent: empty); the exit code must be 1 when it has an error, else 0;
//   - want/stdout.txt: with "run: <pkg>" in the archive's comment, the output
//     of go run <pkg> after generation;
//   - want/explain.txt: with "explain: <flow>" in the comment, the output of
//     hookgen -explain <flow> ./....
//
// Every successful case is also generated again with the files of each
// package shuffled (the bytes must not change), then built and vetted.
// go test -update rewrites the want/ files.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txtar")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			goldenCase(t, file)
		})
	}
}

type caseConfig struct {
	run     string // package to go run
	explain string // flow to explain
	args    []string
}

func parseComment(c []byte) caseConfig {
	var cfg caseConfig
	for _, line := range strings.Split(string(c), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "run":
			cfg.run = v
		case "explain":
			cfg.explain = v
		case "args":
			cfg.args = strings.Fields(v)
		}
	}
	return cfg
}

func goldenCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := parseComment(ar.Comment)
	inputs := map[string][]byte{}
	wants := map[string][]byte{}
	for _, f := range ar.Files {
		if rest, ok := strings.CutPrefix(f.Name, "want/"); ok {
			wants[rest] = f.Data
		} else {
			inputs[f.Name] = f.Data
		}
	}
	dir := newModule(t, inputs)
	code, _, stderr := hookgen(t, dir, append(slices.Clone(cfg.args), "./...")...)
	got := map[string][]byte{}
	if stderr != "" {
		got["errors.txt"] = []byte(stderr)
	}
	for name, data := range generatedFiles(t, dir) {
		got[name] = data
	}
	hasErrors := false
	for _, line := range strings.Split(stderr, "\n") {
		if line != "" && !strings.Contains(line, ": warning: ") {
			hasErrors = true
		}
	}
	wantCode := 0
	if hasErrors {
		wantCode = 1
	}
	if code != wantCode {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	if !hasErrors {
		if cfg.explain != "" {
			c, out, errOut := hookgen(t, dir, "-explain", cfg.explain, "./...")
			if c != 0 {
				t.Errorf("-explain: exit code %d: %s", c, errOut)
			}
			got["explain.txt"] = []byte(out)
		}
		checkDeterministic(t, dir, cfg)
		if out, err := goCmd(t, dir, "build", "./..."); err != nil {
			t.Errorf("go build: %v\n%s", err, out)
		} else if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
			t.Errorf("go vet: %v\n%s", err, out)
		}
		if cfg.run != "" {
			out, err := goCmd(t, dir, "run", cfg.run)
			if err != nil {
				t.Errorf("go run %s: %v\n%s", cfg.run, err, out)
			}
			got["stdout.txt"] = []byte(out)
		}
	}

	if *update {
		ar.Files = slices.DeleteFunc(ar.Files, func(f txtar.File) bool { return strings.HasPrefix(f.Name, "want/") })
		names := make([]string, 0, len(got))
		for name := range got {
			names = append(names, name)
		}
		slices.SortFunc(names, func(a, b string) int {
			// hookgen_gen.go files first, then the other outputs.
			return strings.Compare(sortKey(a), sortKey(b))
		})
		for _, name := range names {
			ar.Files = append(ar.Files, txtar.File{Name: "want/" + name, Data: got[name]})
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, want := range wants {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("want/%s: hookgen produced nothing", name)
		case !bytes.Equal(g, want):
			t.Errorf("want/%s differs (go test -update rewrites it):\n--- got:\n%s\n--- want:\n%s", name, g, want)
		}
	}
	for name, g := range got {
		if _, ok := wants[name]; !ok {
			t.Errorf("unexpected output %s (go test -update adds it):\n%s", name, g)
		}
	}
}

func sortKey(name string) string {
	if path.Base(name) == "hookgen_gen.go" {
		return "0" + name
	}
	return "1" + name
}

// checkDeterministic generates again with each package's files in shuffled
// and reversed orders, and compares with what is on disk.
func checkDeterministic(t *testing.T, dir string, cfg caseConfig) {
	t.Helper()
	onDisk := generatedFiles(t, dir)
	orders := []func([]*ast.File){
		func(fs []*ast.File) { slices.Reverse(fs) },
		func(fs []*ast.File) {
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		},
		func(fs []*ast.File) {
			rand.New(rand.NewPCG(3, 4)).Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		},
	}
	for i, order := range orders {
		res, err := engine.Run(engine.Options{Dir: dir, Env: goEnv(), Patterns: []string{"./..."}, Tags: tagsOf(cfg.args), Shuffle: order})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Packages {
			if p.Stale() {
				t.Errorf("file order %d: %s would change:\n%s", i, p.File, p.New)
			}
		}
	}
	if len(onDisk) == 0 {
		return
	}
	// A second plain run writes nothing.
	res, err := engine.Run(engine.Options{Dir: dir, Env: goEnv(), Patterns: []string{"./..."}, Tags: tagsOf(cfg.args)})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := res.Write()
	if err != nil || len(changes) > 0 {
		t.Errorf("second run wrote %v (err %v)", changes, err)
	}
}

func tagsOf(args []string) []string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-tags="); ok {
			return strings.Split(v, ",")
		}
	}
	return nil
}
