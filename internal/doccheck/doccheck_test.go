package doccheck_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hookflow/hookflow/internal/flowtable"
)

var update = flag.Bool("update", false, "rewrite the Go snippets of README.md and docs/*.md from their sources")

// root is the module root, seen from this package's directory.
const root = "../.."

// TestSnippets checks every Go snippet of the docs against its source, or
// rewrites it with -update.
func TestSnippets(t *testing.T) {
	docs := docFiles(t, root)
	if len(docs) < 2 {
		t.Fatalf("found %d markdown files under %s; want README.md and docs/*.md", len(docs), root)
	}
	snippets := 0
	for _, doc := range docs {
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		out, n, problems := syncSnippets(root, doc, src)
		snippets += n
		for _, p := range problems {
			if *update && p.stale {
				continue
			}
			t.Error(p)
		}
		if *update && !bytes.Equal(out, src) {
			if err := os.WriteFile(filepath.Join(root, doc), out, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote %s", doc)
		}
	}
	if snippets == 0 {
		t.Error("no Go snippet found: the markers are not being read")
	}
}

// TestFlowTable checks the flow table of docs/flows.md against
// flows/table.go, or rewrites it with -update (as `go generate ./flows`
// does).
func TestFlowTable(t *testing.T) {
	tab, err := flowtable.Read(filepath.Join(root, "flows"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "flows.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := flowtable.Splice(string(src), tab.Markdown())
	switch {
	case !ok:
		t.Fatal("docs/flows.md has no flow table markers")
	case got == string(src):
	case *update:
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote the flow table of docs/flows.md")
	default:
		t.Error("the flow table of docs/flows.md is stale: run `go generate ./flows`")
	}
}

// TestLinks checks that every relative link of the docs names a file or
// directory that exists, and that a link to a heading of a markdown file
// names one of its headings.
func TestLinks(t *testing.T) {
	for _, doc := range docFiles(t, root) {
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(src) {
			target, anchor, _ := strings.Cut(l.target, "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := doc
			if target != "" {
				p = path.Join(path.Dir(doc), target)
			}
			linked, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				if _, statErr := os.Stat(filepath.Join(root, filepath.FromSlash(p))); statErr != nil {
					t.Errorf("%s:%d: link to %s: no such file", doc, l.line, l.target)
				}
				continue
			}
			if anchor != "" && strings.HasSuffix(p, ".md") && !slices.Contains(headingSlugs(linked), anchor) {
				t.Errorf("%s:%d: link to %s: %s has no heading %q", doc, l.line, l.target, p, anchor)
			}
		}
	}
}

// TestHeadingSlugs pins the anchors headings get, as GitHub renders them.
func TestHeadingSlugs(t *testing.T) {
	src := "# Title\n\n## Order: `hookgen -explain`\n\n```\n# not a heading\n```\n\n### hookgen (`BenchmarkGenerate`)\n"
	got := headingSlugs([]byte(src))
	want := []string{"title", "order-hookgen--explain", "hookgen-benchmarkgenerate"}
	if !slices.Equal(got, want) {
		t.Errorf("headingSlugs = %q, want %q", got, want)
	}
}

// headingSlugs returns the anchors of the ATX headings of a markdown file
// outside code blocks: lower case, spaces to hyphens, other punctuation
// dropped.
func headingSlugs(src []byte) []string {
	var out []string
	inFence := false
	for line := range strings.Lines(string(src)) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if inFence || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestSyncSnippetsFindsDrift runs the checker on small fixtures: each case
// must report its problem, so the real check cannot pass by reading nothing.
func TestSyncSnippetsFindsDrift(t *testing.T) {
	dir := t.TempDir()
	const goSrc = `package p

// A is a doc'd type.
type A struct{}

// M is a method.
func (*A) M() {}

func F() {
	x := 1
	// snippet:start body
	x++
	if x > 1 {
		x--
	}
	// snippet:end body
	_ = x
}

const (
	// K is a constant.
	K = 1
	L = 2
)
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(goSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	fence := "```"
	tests := []struct {
		name    string
		md      string
		want    string // the block after sync, "" when unchanged
		problem string // substring of the one problem reported, "" for none
	}{
		{
			name: "in sync",
			md:   "<!-- snippet: p.go#A,A.M -->\n" + fence + "go\n// A is a doc'd type.\ntype A struct{}\n\n// M is a method.\nfunc (*A) M() {}\n" + fence + "\n",
		},
		{
			name:    "stale block",
			md:      "<!-- snippet: p.go#A -->\n" + fence + "go\ntype A struct{ old int }\n" + fence + "\n",
			want:    "// A is a doc'd type.\ntype A struct{}\n",
			problem: "differs from p.go#A",
		},
		{
			name:    "region, unindented",
			md:      "<!-- snippet: p.go#region:body -->\n" + fence + "go\n" + fence + "\n",
			want:    "x++\nif x > 1 {\n\tx--\n}\n",
			problem: "differs",
		},
		{
			name:    "grouped const spec",
			md:      "<!-- snippet: p.go#K -->\n" + fence + "go\n" + fence + "\n",
			want:    "// K is a constant.\nK = 1\n",
			problem: "differs",
		},
		{
			name:    "unknown declaration",
			md:      "<!-- snippet: p.go#Nope -->\n" + fence + "go\nx\n" + fence + "\n",
			problem: `no declaration "Nope"`,
		},
		{
			name:    "missing region",
			md:      "<!-- snippet: p.go#region:nope -->\n" + fence + "go\nx\n" + fence + "\n",
			problem: `no region "nope"`,
		},
		{
			name:    "go block without a marker",
			md:      "text\n\n" + fence + "go\nx := 1\n" + fence + "\n",
			problem: "no snippet marker",
		},
		{
			name:    "marker without a go block",
			md:      "<!-- snippet: p.go#A -->\n\n" + fence + "sh\nx\n" + fence + "\n",
			problem: "not followed by",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, problems := syncSnippets(dir, "doc.md", []byte(tt.md))
			var got []string
			for _, p := range problems {
				got = append(got, p.Error())
			}
			switch {
			case tt.problem == "" && len(got) != 0:
				t.Errorf("problems %q, want none", got)
			case tt.problem != "" && (len(got) != 1 || !strings.Contains(got[0], tt.problem)):
				t.Errorf("problems %q, want one containing %q", got, tt.problem)
			}
			if tt.want != "" && !strings.Contains(string(out), fence+"go\n"+tt.want+fence) {
				t.Errorf("after sync:\n%s\nwant block:\n%s", out, tt.want)
			}
		})
	}
}

// docFiles returns README.md and every .md file under docs/, slash-separated
// and relative to dir.
func docFiles(t *testing.T, dir string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := fs.WalkDir(os.DirFS(dir), "docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// problem is one finding in a markdown file. stale problems are the ones
// -update repairs.
type problem struct {
	doc   string
	line  int
	msg   string
	stale bool
}

func (p problem) Error() string { return fmt.Sprintf("%s:%d: %s", p.doc, p.line, p.msg) }

const markerPrefix, markerSuffix = "<!-- snippet:", "-->"

// syncSnippets returns src with every marked Go block replaced by its
// source, the number of marked blocks, and the problems found.
func syncSnippets(dir, doc string, src []byte) (out []byte, n int, problems []problem) {
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	inFence := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		b.WriteString(line)
		if strings.HasPrefix(trimmed, "```") {
			if !inFence && strings.HasPrefix(trimmed, "```go") {
				problems = append(problems, problem{doc: doc, line: i + 1, msg: "Go block has no snippet marker on the line before it"})
			}
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(trimmed, markerPrefix) {
			continue
		}
		spec := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, markerPrefix), markerSuffix))
		if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "```go") {
			problems = append(problems, problem{doc: doc, line: i + 1, msg: "snippet marker not followed by a ```go line"})
			continue
		}
		// Copy the fence line and find the block's end.
		fenceLine := lines[i+1]
		indent := fenceLine[:len(fenceLine)-len(strings.TrimLeft(fenceLine, " "))]
		end := i + 2
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			problems = append(problems, problem{doc: doc, line: i + 2, msg: "unterminated ```go block"})
			b.WriteString(strings.Join(lines[i+1:], ""))
			break
		}
		n++
		old := strings.Join(lines[i+2:end], "")
		want, err := extract(dir, spec)
		b.WriteString(fenceLine)
		if err != nil {
			problems = append(problems, problem{doc: doc, line: i + 1, msg: err.Error()})
			b.WriteString(old)
		} else {
			body := indentLines(want, indent)
			if body != old {
				problems = append(problems, problem{doc: doc, line: i + 2, stale: true,
					msg: fmt.Sprintf("snippet differs from %s; run: go test ./internal/doccheck -update", spec)})
			}
			b.WriteString(body)
		}
		b.WriteString(lines[end])
		i = end
	}
	return []byte(b.String()), n, problems
}

// indentLines prefixes every non-empty line of s with indent (for blocks
// inside list items) and ends s with a newline.
func indentLines(s, indent string) string {
	var b strings.Builder
	for l := range strings.Lines(strings.TrimSuffix(s, "\n") + "\n") {
		if l != "\n" {
			b.WriteString(indent)
		}
		b.WriteString(l)
	}
	return b.String()
}

// extract returns the Go text a marker's spec names: "file.go",
// "file.go#Sel,Sel…".
func extract(dir, spec string) (string, error) {
	file, sels, hasSel := strings.Cut(spec, "#")
	if !strings.HasSuffix(file, ".go") || strings.Contains(file, "testdata/") {
		return "", fmt.Errorf("snippet source %q: want a compiled .go file of the module", file)
	}
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return "", fmt.Errorf("snippet source: %v", err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", fmt.Errorf("snippet source: %v", err)
	}
	if !hasSel {
		return string(src), nil
	}
	var parts []string
	for sel := range strings.SplitSeq(sels, ",") {
		sel = strings.TrimSpace(sel)
		var text string
		var err error
		if name, ok := strings.CutPrefix(sel, "region:"); ok {
			text, err = region(fset, f, src, name)
		} else {
			text, err = declaration(fset, f, src, sel)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %v", file, err)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n") + "\n", nil
}

// declaration returns the source of the top-level declaration sel ("Name" or
// "Type.Method"), from its doc comment to its end.
func declaration(fset *token.FileSet, f *ast.File, src []byte, sel string) (string, error) {
	recv, name, isMethod := strings.Cut(sel, ".")
	if !isMethod {
		name, recv = recv, ""
	}
	text := func(doc *ast.CommentGroup, from, to token.Pos) string {
		if doc != nil {
			from = doc.Pos()
		}
		start := fset.Position(from)
		s := string(src[start.Offset:fset.Position(to).Offset])
		return dedent(strings.Repeat("\t", start.Column-1) + s)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == name && receiverName(d) == recv {
				return text(d.Doc, d.Pos(), d.End()), nil
			}
		case *ast.GenDecl:
			if recv != "" {
				continue
			}
			for _, s := range d.Specs {
				var names []*ast.Ident
				var doc *ast.CommentGroup
				switch s := s.(type) {
				case *ast.TypeSpec:
					names, doc = []*ast.Ident{s.Name}, s.Doc
				case *ast.ValueSpec:
					names, doc = s.Names, s.Doc
				}
				if !slices.ContainsFunc(names, func(id *ast.Ident) bool { return id.Name == name }) {
					continue
				}
				if d.Lparen.IsValid() {
					return text(doc, s.Pos(), s.End()), nil
				}
				return text(d.Doc, d.Pos(), d.End()), nil
			}
		}
	}
	return "", fmt.Errorf("no declaration %q", sel)
}

// receiverName returns the name of a method's receiver type without "*" and
// type parameters, or "" for a function.
func receiverName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// region returns the lines between the comments "// snippet:start name" and
// "// snippet:end name", unindented.
func region(fset *token.FileSet, f *ast.File, src []byte, name string) (string, error) {
	var start, end token.Pos
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			switch strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) {
			case "snippet:start " + name:
				start = c.End()
			case "snippet:end " + name:
				end = c.Pos()
			}
		}
	}
	if !start.IsValid() || !end.IsValid() || end < start {
		return "", fmt.Errorf("no region %q (want // snippet:start %[1]s … // snippet:end %[1]s)", name)
	}
	from := fset.Position(start).Offset
	from += bytes.IndexByte(src[from:], '\n') + 1
	to := fset.Position(end).Offset
	to = bytes.LastIndexByte(src[:to], '\n') + 1
	return dedent(string(src[from:to])), nil
}

// dedent removes the longest run of leading tabs that every non-empty line
// shares, and the trailing newline.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n")
}

// link is a relative or absolute link target found in markdown prose.
type link struct {
	line   int
	target string
}

// links returns the targets of the inline links "[text](target)" outside
// code blocks and code spans.
func links(src []byte) []link {
	var out []link
	inFence := false
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		inCode := false
		for j := 0; j < len(line); j++ {
			switch {
			case line[j] == '`':
				inCode = !inCode
			case !inCode && line[j] == ']' && j+1 < len(line) && line[j+1] == '(':
				if k := strings.IndexByte(line[j+2:], ')'); k >= 0 {
					out = append(out, link{line: i + 1, target: line[j+2 : j+2+k]})
					j += 2 + k
				}
			}
		}
	}
	return out
}
