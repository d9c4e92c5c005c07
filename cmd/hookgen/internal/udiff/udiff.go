package udiff

import (
	"fmt"
	"slices"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// maxEdits bounds the work of the Myers search (memory grows with the
// number of edits times the number of lines); beyond it the differing middle
// is shown as one replacement, which is still a correct diff.
const maxEdits = 2000

// Unified returns the unified diff that turns a into b, with headers naming
// them oldName and newName, or "" when they are equal.
func Unified(oldName, newName string, a, b string) string {
	if a == b {
		return ""
	}
	al := split(a)
	bl := split(b)
	ops := diff(al, bl)
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", oldName, newName)
	line := func(tag byte, s string) {
		w.WriteByte(tag)
		w.WriteString(strings.TrimSuffix(s, "\x00"))
		w.WriteByte('\n')
		if strings.HasSuffix(s, "\x00") {
			w.WriteString("\\ No newline at end of file\n")
		}
	}
	for _, h := range hunks(ops) {
		fmt.Fprintf(&w, "@@ -%s +%s @@\n", rng(h.a0, h.a1), rng(h.b0, h.b1))
		for _, o := range ops[h.i:h.j] {
			switch o.tag {
			case ' ', '-':
				line(o.tag, al[o.a])
			case '+':
				line('+', bl[o.b])
			}
		}
	}
	return w.String()
}

// split returns the lines of s without their newlines. When s does not end
// in a newline, its last line carries a NUL marker, so that it never equals a
// line that had one and is printed with "\ No newline at end of file".
func split(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if !strings.HasSuffix(s, "\n") {
		lines[len(lines)-1] += "\x00"
	}
	return lines
}

func rng(start, end int) string {
	n := end - start
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// op is one line of the edit script: ' ' keeps a[a] (= b[b]), '-' deletes
// a[a], '+' inserts b[b].
type op struct {
	tag  byte
	a, b int
}

type hunk struct {
	i, j   int // ops[i:j]
	a0, a1 int // lines of a
	b0, b1 int // lines of b
}

// hunks groups the changes of ops with Context lines around them.
func hunks(ops []op) []hunk {
	var out []hunk
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].tag == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-Context)
		end := i
		for end < len(ops) {
			if ops[end].tag != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].tag == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*Context {
				end = min(end+Context, run)
				break
			}
			end = run
		}
		h := hunk{i: start, j: end}
		h.a0, h.b0 = position(ops, start)
		h.a1, h.b1 = position(ops, end)
		out = append(out, h)
		i = end
	}
	return out
}

// position returns the line numbers in a and b where ops[i] starts.
func position(ops []op, i int) (int, int) {
	a, b := 0, 0
	for _, o := range ops[:i] {
		switch o.tag {
		case ' ':
			a, b = o.a+1, o.b+1
		case '-':
			a = o.a + 1
		case '+':
			b = o.b + 1
		}
	}
	return a, b
}

// diff returns the edit script from a to b.
func diff(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for i := range p {
		ops = append(ops, op{' ', i, i})
	}
	mid := myers(a[p:len(a)-s], b[p:len(b)-s])
	for _, o := range mid {
		ops = append(ops, op{o.tag, o.a + p, o.b + p})
	}
	for i := range s {
		ops = append(ops, op{' ', len(a) - s + i, len(b) - s + i})
	}
	return ops
}

// myers returns a shortest edit script from a to b (deletions before
// insertions within a change), or a plain replacement when the script would
// be longer than maxEdits.
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	for d := 0; d <= n+m; d++ {
		if d > maxEdits {
			return replace(n, m)
		}
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, off)
			}
		}
	}
	return replace(n, m)
}

func backtrack(trace [][]int, n, m, off int) []op {
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			rev = append(rev, op{' ', x - 1, y - 1})
			x--
			y--
		}
		if d > 0 {
			if x == px {
				rev = append(rev, op{'+', px, py})
			} else {
				rev = append(rev, op{'-', px, py})
			}
		}
		x, y = px, py
	}
	slices.Reverse(rev)
	return rev
}

func replace(n, m int) []op {
	ops := make([]op, 0, n+m)
	for i := range n {
		ops = append(ops, op{'-', i, 0})
	}
	for j := range m {
		ops = append(ops, op{'+', 0, j})
	}
	return ops
}
