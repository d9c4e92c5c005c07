package command_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guide's table "Same as the agent, or not" stays honest: each row
// says same or differs, says why when it differs, and names a test of
// this package that exists.
func TestAgentTable(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				tests[fn.Name.Name] = true
			}
		}
	}
	rows := tableRows(t, filepath.Join("..", "..", "docs", "command-hooks.md"), "## Same as the agent, or not")
	if len(rows) < 10 {
		t.Fatalf("the table has %d rows", len(rows))
	}
	for _, r := range rows {
		if len(r) != 4 {
			t.Errorf("row %q has %d cells, want 4", r, len(r))
			continue
		}
		what, verdict, why, test := r[0], r[1], r[2], strings.Trim(r[3], "`")
		if !strings.HasPrefix(verdict, "same") && !strings.HasPrefix(verdict, "differs") {
			t.Errorf("%q: says %q, not same or differs", what, verdict)
		}
		if strings.Contains(verdict, "differs") && why == "" {
			t.Errorf("%q differs, and does not say why", what)
		}
		if !tests[test] {
			t.Errorf("%q names the test %q, which this package does not have", what, test)
		}
	}
}

// tableRows returns the cells of the body rows of the first table after
// the heading in a markdown file.
func tableRows(t *testing.T, file, heading string) [][]string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	in, header := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == heading:
			in = true
		case !in:
		case strings.HasPrefix(line, "|"):
			header++
			if header <= 2 { // the header and its delimiter row
				continue
			}
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		case header > 0:
			return rows
		}
	}
	return rows
}
