package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The CLI tests run the command in-process with run, in a test module made
// the working directory (so they cannot run in parallel).

// cli runs the command with args in the current directory.
func cli(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// inModule makes a test module with files the working directory.
func inModule(t *testing.T, files map[string]string) string {
	t.Helper()
	fs := map[string][]byte{}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	dir := newModule(t, fs)
	t.Chdir(dir)
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	return dir
}

const cliTool = `package cli

import (
	"context"

	"github.com/hookflow/hookflow/flows"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type In struct{}
type Out struct{}

var _ flows.ID

// Echo echoes.
//
//mcp:tool name=echo
type Echo struct{}

func (Echo) Execute(context.Context, *mcp.CallToolRequest, In) (Out, error) { return Out{}, nil }
`

const cliHook = `
//hook:beforeExecute priority=3
func (Echo) Check(flows.ToolCall[In, Out]) error { return nil }
`

func TestCLIUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string // a substring
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-check", "-explain", "tools:call-tool"}, 2, "-check and -explain cannot be used together"},
		{[]string{"-explain", "tools:call"}, 2, `unknown flow "tools:call" (did you mean "tools:call-tool"?)`},
		{[]string{"-explain", "x"}, 2, `unknown flow "x" (flows: tools:call-tool, `},
		{[]string{"-list", "./..."}, 2, "-list takes no packages"},
		{[]string{"-nope"}, 2, "Exit status: 0 when all is well"},
	}
	for _, tt := range tests {
		code, _, stderr := cli(tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("hookgen %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.stderr)
		}
	}
	// Help asked for is the answer: on stdout, exit 0, with the exit codes.
	code, stdout, stderr := cli("-h")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: hookgen [-check | -explain <flow> | -list]") ||
		!strings.Contains(stdout, "Exit status: 0 when all is well; 1 for directive errors") || !strings.Contains(stdout, "-explain flow") {
		t.Errorf("hookgen -h: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// A directory without Go files is a load error hookgen names itself.
func TestCLINoGoFiles(t *testing.T) {
	dir := inModule(t, map[string]string{"cli.go": cliTool})
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli("./empty")
	if code != 2 || !strings.HasPrefix(stderr, "hookgen: ") || !strings.Contains(stderr, "no Go files in") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestCLIList(t *testing.T) {
	code, stdout, stderr := cli("-list")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// The golden file is the registry of the core and the extensions that
	// the directive package's tests build: main lists the same ones.
	want, err := os.ReadFile(filepath.Join("internal", "directive", "testdata", "list.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("-list printed:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestCLIGenerateAndCheck walks a package through its life: stale before
// the first run, generated, fresh, changed (with the exact -check diff),
// regenerated, and removed when no directive is left.
func TestCLIGenerateAndCheck(t *testing.T) {
	dir := inModule(t, map[string]string{"cli.go": cliTool})
	gen := filepath.Join(dir, "hookgen_gen.go")

	code, stdout, stderr := cli("-check")
	if code != 1 || !strings.HasPrefix(stdout, "--- /dev/null\n+++ b/hookgen_gen.go\n@@ -0,0 +1,") || stderr != "hookgen: 1 generated file stale: run go generate\n" {
		t.Fatalf("-check before generating: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(gen); !os.IsNotExist(err) {
		t.Fatalf("-check wrote the file (stat: %v)", err)
	}

	code, _, stderr = cli("-v")
	if code != 0 || !strings.Contains(stderr, "hookgen: wrote hookgen_gen.go\n") || !strings.Contains(stderr, "1 with directives; list ") {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	first, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(gen, old, old); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli("-v", ".")
	if code != 0 || strings.Contains(stderr, "wrote") {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	if fi, err := os.Stat(gen); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("an unchanged file was written again (%v)", err)
	}
	if code, stdout, stderr := cli("-check", "./..."); code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("-check on fresh output: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// A new hook: -check shows exactly what would change and writes nothing.
	writeFiles(t, dir, map[string][]byte{"cli.go": []byte(cliTool + cliHook)})
	code, stdout, _ = cli("-check")
	const wantDiff = `--- a/hookgen_gen.go
+++ b/hookgen_gen.go
@@ -7,7 +7,9 @@
 import (
 	"errors"
 
+	"github.com/hookflow/hookflow/flows"
 	"github.com/hookflow/hookflow/framework"
+	"github.com/hookflow/hookflow/stages"
 	"github.com/modelcontextprotocol/go-sdk/mcp"
 )
 
@@ -27,6 +29,9 @@
 				Description: "Echo echoes.",
 			},
 			Execute: Echo.Execute,
+			Hooks: []framework.EntityHook[Echo, flows.ToolCall[In, Out]]{
+				{Stage: stages.BeforeExecute, Priority: 3, Name: "Check", Fn: Echo.Check},
+			},
 		}),
 	)
 }
@@ -35,4 +40,5 @@
 // renamed or deleted, or its signature changed: re-run "go generate".
 var _ = [...]any{
 	Echo.Execute,
+	Echo.Check,
 }
`
	if code != 1 || stdout != wantDiff {
		t.Errorf("-check after adding a hook: exit %d, diff:\n%s\nwant:\n%s", code, stdout, wantDiff)
	}
	if now, _ := os.ReadFile(gen); !bytes.Equal(now, first) {
		t.Error("-check changed the file")
	}
	if code, _, stderr := cli(); code != 0 {
		t.Fatalf("regenerate: exit %d\n%s", code, stderr)
	}
	if code, _, _ := cli("-check"); code != 0 {
		t.Error("-check after regenerating: stale")
	}

	// No directive left: -check shows the removal, then hookgen removes it.
	writeFiles(t, dir, map[string][]byte{"cli.go": []byte(strings.ReplaceAll(cliTool+cliHook, "//mcp:tool name=echo\n", ""))})
	writeFiles(t, dir, map[string][]byte{"cli.go": []byte(strings.ReplaceAll(cliTool, "//mcp:tool name=echo\n", ""))})
	code, stdout, _ = cli("-check")
	if code != 1 || !strings.HasPrefix(stdout, "--- a/hookgen_gen.go\n+++ /dev/null\n@@ -1,") {
		t.Errorf("-check with no directive left: exit %d\n%s", code, stdout)
	}
	code, _, stderr = cli("-v")
	if code != 0 || !strings.Contains(stderr, "hookgen: removed hookgen_gen.go\n") {
		t.Errorf("removal: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(gen); !os.IsNotExist(err) {
		t.Errorf("hookgen_gen.go still exists (%v)", err)
	}
}

// TestCLIErrors: directive errors exit 1, list every error, and leave an
// existing generated file untouched.
func TestCLIErrors(t *testing.T) {
	dir := inModule(t, map[string]string{"cli.go": cliTool})
	if code, _, stderr := cli(); code != 0 {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	gen := filepath.Join(dir, "hookgen_gen.go")
	before, _ := os.ReadFile(gen)
	bad := cliTool + cliHook + `
//hook:beforeExecute priorty=1
func (Echo) Typo(flows.ToolCall[In, Out]) error { return nil }

//hook:afterExecute
func (Echo) WrongType(flows.ToolCall[In, string]) error { return nil }
`
	writeFiles(t, dir, map[string][]byte{"cli.go": []byte(bad)})
	code, stdout, stderr := cli("./...")
	want := `cli.go:25:22: unknown key "priorty" for //hook:beforeExecute (did you mean "priority"?)
cli.go:29:13: hook WrongType of tool Echo must be func(flows.ToolCall[In, Out]) error, got func(flows.ToolCall[In, string]) error
`
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if after, _ := os.ReadFile(gen); !bytes.Equal(after, before) {
		t.Error("a package with errors had its file rewritten")
	}
	if code, _, _ := cli("-check"); code != 1 {
		t.Errorf("-check with directive errors: exit %d, want 1", code)
	}
}

// TestCLILoadErrors: packages that do not load or type-check exit 2.
func TestCLILoadErrors(t *testing.T) {
	inModule(t, map[string]string{"cli.go": cliTool + "\nvar broken int = \"x\"\n"})
	code, _, stderr := cli()
	if code != 2 || !strings.Contains(stderr, `cli.go:22:18: cannot use "x"`) {
		t.Errorf("type error: exit %d\n%s", code, stderr)
	}
	code, _, stderr = cli("./nowhere")
	if code != 2 || !strings.Contains(stderr, "nowhere") {
		t.Errorf("missing package: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat("hookgen_gen.go"); !os.IsNotExist(err) {
		t.Error("a file was written for a package that does not load")
	}
}

// TestCLINotOurs: hookgen never overwrites a hookgen_gen.go it did not
// write.
func TestCLINotOurs(t *testing.T) {
	foreign := "package cli\n\n// Written by hand.\n"
	inModule(t, map[string]string{"cli.go": cliTool, "hookgen_gen.go": foreign})
	code, _, stderr := cli()
	if code != 1 || !strings.Contains(stderr, "hookgen_gen.go:1:1: hookgen_gen.go exists but was not written by hookgen") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile("hookgen_gen.go"); string(b) != foreign {
		t.Error("the foreign file was overwritten")
	}
}

// TestCLITags: -tags (and GOFLAGS=-tags) select files; hookgen adds its own.
func TestCLITags(t *testing.T) {
	tagged := "//go:build extra\n\n" + cliTool
	inModule(t, map[string]string{"cli.go": tagged, "doc.go": "// Package cli is tagged.\npackage cli\n"})
	if code, _, stderr := cli(); code != 0 {
		t.Fatalf("untagged: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat("hookgen_gen.go"); !os.IsNotExist(err) {
		t.Fatal("a file was generated from a file excluded by build tags")
	}
	if code, _, stderr := cli("-check", "-tags=extra"); code != 1 {
		t.Fatalf("-check -tags=extra: exit %d, want 1 (stale)\n%s", code, stderr)
	}
	t.Setenv("GOFLAGS", "-mod=mod -tags=extra")
	if code, _, stderr := cli(); code != 0 {
		t.Fatalf("GOFLAGS=-tags=extra: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat("hookgen_gen.go"); err != nil {
		t.Fatal("no file generated with GOFLAGS=-tags=extra")
	}
}

// TestCLIExplainEntityless: flows without embedded hooks have one plan.
func TestCLIExplainEntityless(t *testing.T) {
	src := cliTool + `
//hook:afterExecute flow=tools:list-tools priority=-1
func Last(c flows.List[*mcp.ListToolsResult]) error { return nil }

//hook:afterExecute flow=tools:list-tools
func First(c *flows.Context) error { return nil }
`
	inModule(t, map[string]string{"cli.go": src})
	code, stdout, stderr := cli("-explain", "tools:list-tools")
	want := `
package example.com/test

tools:list-tools (every request: the flow has no embedded hooks)
  afterExecute
     0  <server>/tools:list-tools/afterExecute/First
    -1  <server>/tools:list-tools/afterExecute/Last
`
	if code != 0 || !strings.HasSuffix(stdout, want) || stdout != "hookgen -explain tools:list-tools (descending priority; ties in registration order)\n"+want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant suffix:\n%s", code, stdout, stderr, want)
	}
	if _, err := os.Stat("hookgen_gen.go"); !os.IsNotExist(err) {
		t.Error("-explain wrote a file")
	}
}
