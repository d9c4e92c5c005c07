package udiff

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedExact(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	b := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -2,9 +2,10 @@
 b
 c
 d
-e
+E
 f
 g
 h
 i
 j
+k
`
	if got := Unified("old", "new", a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Unified("old", "new", a, a); got != "" {
		t.Errorf("equal inputs: got %q", got)
	}
	if got, want := Unified("/dev/null", "b/x", "", "x\ny\n"), "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+x\n+y\n"; got != want {
		t.Errorf("new file: got %q, want %q", got, want)
	}
	if got, want := Unified("a/x", "/dev/null", "x\n", ""), "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"; got != want {
		t.Errorf("deleted file: got %q, want %q", got, want)
	}
	if got, want := Unified("a", "b", "x\ny", "x\ny\n"), "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n"; got != want {
		t.Errorf("missing newline: got %q, want %q", got, want)
	}
}

// TestUnifiedApplies checks on random inputs that applying the diff to a
// gives b, and that hunks are well-formed.
func TestUnifiedApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		a := randText(r)
		b := mutate(r, a)
		d := Unified("a", "b", a, b)
		got, err := apply(a, d)
		if err != nil {
			t.Fatalf("case %d: %v\na=%q\nb=%q\n%s", i, err, a, b, d)
		}
		if got != b {
			t.Fatalf("case %d: applying the diff gives %q, want %q\n%s", i, got, b, d)
		}
	}
}

func TestLargeDiffFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	d := Unified("a", "b", a.String(), b.String())
	got, err := apply(a.String(), d)
	if err != nil || got != b.String() {
		t.Fatalf("large diff does not apply: %v", err)
	}
}

func randText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(30) {
		fmt.Fprintf(&b, "l%d\n", r.IntN(6))
	}
	return b.String()
}

func mutate(r *rand.Rand, s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for range r.IntN(6) {
		switch i := r.IntN(len(lines) + 1); r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{fmt.Sprintf("n%d\n", r.IntN(6))}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = fmt.Sprintf("m%d\n", r.IntN(6))
			}
		}
	}
	out := strings.Join(lines, "")
	if r.IntN(10) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// apply applies a unified diff produced by Unified to a.
func apply(a, d string) (string, error) {
	if d == "" {
		return a, nil
	}
	old := split(a)
	dl := strings.Split(strings.TrimSuffix(d, "\n"), "\n")[2:]
	var out []string
	pos := 0
	for i := 0; i < len(dl); {
		var a0, an, b0, bn int
		if _, err := fmt.Sscanf(dl[i], "@@ -%s +%s @@", new(string), new(string)); err != nil {
			return "", fmt.Errorf("bad hunk header %q", dl[i])
		}
		f := strings.Fields(dl[i])
		a0, an = parseRange(f[1][1:])
		b0, bn = parseRange(f[2][1:])
		_ = b0
		start := a0 - 1
		if an == 0 {
			start = a0
		}
		if start < pos {
			return "", fmt.Errorf("overlapping hunk %q", dl[i])
		}
		out = append(out, old[pos:start]...)
		pos = start
		i++
		gotA, gotB := 0, 0
		for i < len(dl) && !strings.HasPrefix(dl[i], "@@") {
			l := dl[i]
			i++
			eol := ""
			if i < len(dl) && dl[i] == `\ No newline at end of file` {
				eol = "\x00"
				i++
			}
			switch l[0] {
			case ' ':
				if pos >= len(old) || old[pos] != l[1:]+eol {
					return "", fmt.Errorf("context %q does not match line %d", l, pos+1)
				}
				out = append(out, old[pos])
				pos++
				gotA++
				gotB++
			case '-':
				if pos >= len(old) || old[pos] != l[1:]+eol {
					return "", fmt.Errorf("deleted %q does not match line %d", l, pos+1)
				}
				pos++
				gotA++
			case '+':
				out = append(out, l[1:]+eol)
				gotB++
			}
		}
		if gotA != an || gotB != bn {
			return "", fmt.Errorf("hunk counts: got -%d +%d, header says -%d +%d", gotA, gotB, an, bn)
		}
	}
	out = append(out, old[pos:]...)
	s := strings.Join(out, "\n")
	if len(out) > 0 {
		s += "\n"
	}
	if strings.HasSuffix(s, "\x00\n") {
		s = strings.TrimSuffix(s, "\x00\n")
	}
	return s, nil
}

func parseRange(s string) (int, int) {
	start, count, ok := strings.Cut(s, ",")
	a, _ := strconv.Atoi(start)
	if !ok {
		return a, 1
	}
	n, _ := strconv.Atoi(count)
	return a, n
}
