package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const guardSrc = `package g

import (
	"context"

	"github.com/hookflow/hookflow/flows"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type In struct{}
type Out struct{}

//mcp:tool name=t
type T struct{}

func (*T) Execute(context.Context, *mcp.CallToolRequest, In) (Out, error) { return Out{}, nil }

//hook:beforeExecute
func (*T) Check(flows.ToolCall[In, Out]) error { return nil }

//hook:finally flow=tools:call-tool
func Audit(*flows.Context) error { return nil }

//mcp:plugin name=p
type P struct{}

//hook:beforeValidation flow=tools:call-tool
func (*P) Deny(*flows.Context) error { return nil }
`

// TestStalenessGuard proves that a stale hookgen_gen.go breaks the build
// with an error on its guard line (whose comment says to re-run go
// generate) when a hooked method or function is renamed, and that
// re-running hookgen repairs it.
func TestStalenessGuard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		old, new string
		guard    string // the guard entry that must fail
		regen    string // hookgen's error after the change; "" when it repairs the file
	}{
		{"renamed hook method", "func (*T) Check(", "func (*T) Verify(", "(*T).Check,", ""},
		{"renamed hook function", "func Audit(", "func AuditAll(", "Audit,", ""},
		{"renamed plugin method", "func (*P) Deny(", "func (*P) Refuse(", "(*P).Deny,", ""},
		{"renamed work method", "func (*T) Execute(", "func (*T) Run(", "(*T).Execute,", "g.go:14:6: tool T has no Execute method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := newModule(t, map[string][]byte{"g.go": []byte(guardSrc)})
			if code, _, stderr := hookgen(t, dir); code != 0 {
				t.Fatalf("hookgen: exit %d\n%s", code, stderr)
			}
			if out, err := goCmd(t, dir, "build", "./..."); err != nil {
				t.Fatalf("fresh output does not build: %v\n%s", err, out)
			}
			gen, err := os.ReadFile(filepath.Join(dir, "hookgen_gen.go"))
			if err != nil {
				t.Fatal(err)
			}
			line := guardLine(t, string(gen), tc.guard)

			src := strings.Replace(guardSrc, tc.old, tc.new, 1)
			writeFiles(t, dir, map[string][]byte{"g.go": []byte(src)})
			out, err := goCmd(t, dir, "build", "./...")
			if err == nil {
				t.Fatalf("stale output still builds after %s", tc.name)
			}
			want := fmt.Sprintf("hookgen_gen.go:%d:", line)
			if !strings.Contains(out, want) {
				t.Errorf("build error does not point at the guard line %q (%s):\n%s", want, strings.TrimSpace(tc.guard), out)
			}

			// hookgen itself still loads the package (the stale file is
			// excluded by the hookgen tag) and repairs it, or says what is
			// wrong.
			code, _, stderr := hookgen(t, dir)
			if tc.regen != "" {
				if code != 1 || !strings.HasPrefix(stderr, tc.regen) {
					t.Errorf("hookgen after the rename: exit %d, stderr %q; want 1 and %q", code, stderr, tc.regen)
				}
				return
			}
			if code != 0 {
				t.Fatalf("hookgen after the rename: exit %d\n%s", code, stderr)
			}
			if out, err := goCmd(t, dir, "build", "./..."); err != nil {
				t.Fatalf("regenerated output does not build: %v\n%s", err, out)
			}
		})
	}
}

// guardLine returns the 1-based line of entry inside the guard block, and
// checks that the block's comment tells to re-run go generate.
func guardLine(t *testing.T, src, entry string) int {
	t.Helper()
	lines := strings.Split(src, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "var _ = [...]any{") {
			in = true
			if i < 1 || !strings.Contains(lines[i-1], `re-run "go generate"`) {
				t.Fatalf("the guard's comment does not say to re-run go generate:\n%s", src)
			}
			continue
		}
		if in && strings.TrimSpace(l) == entry {
			return i + 1
		}
	}
	t.Fatalf("no guard entry %q in:\n%s", entry, src)
	return 0
}
