package load

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// Tag is the build tag hookgen always adds: hookgen_gen.go carries
// //go:build !hookgen, so hookgen never sees its own output.
const Tag = "hookgen"

// GenFile is the name of the generated file in every package directory.
const GenFile = "hookgen_gen.go"

// Config says what to load.
type Config struct {
	Dir      string   // the directory patterns are relative to; "" for the current one
	Patterns []string // package patterns; none means "."
	Tags     []string // the user's build tags; Tag is appended
	Env      []string // the go command's environment; nil for os.Environ()
}

// Package is one package matched by the patterns.
type Package struct {
	PkgPath string
	Name    string
	Dir     string
	// Candidate reports that the package's files hold at least one line that
	// starts a //hook: or //mcp: comment, or a look-alike of one; only those
	// are type-checked.
	Candidate bool
	// Pkg is the type-checked package, nil for packages that are not
	// candidates or failed to load.
	Pkg *packages.Package
	// Errors are the package's load errors: go list, parse and type errors
	// (apart from references to the identifiers hookgen generates, which a
	// load with the hookgen tag cannot see).
	Errors []Error
}

// GenPath returns the path of the package's generated file.
func (p *Package) GenPath() string { return filepath.Join(p.Dir, GenFile) }

// Error is a load error: Pos is "file:line:col" (or "" when unknown).
type Error struct {
	Pos string
	Msg string
}

func (e Error) String() string {
	if e.Pos == "" || e.Pos == "-" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

// Stats tells what a Load did and how long it took.
type Stats struct {
	List, Scan, Types time.Duration
	Packages          int // matched by the patterns
	Candidates        int // type-checked
}

// BuildFlags returns the go command flags for the user's tags plus Tag.
func BuildFlags(tags []string) []string {
	all := append(slices.Clone(tags), Tag)
	return []string{"-tags=" + strings.Join(all, ",")}
}

// Load lists the packages matching cfg.Patterns and type-checks the
// candidates. It returns the packages sorted by path. An error means the go
// command itself failed (bad patterns, no go.mod…); problems of single
// packages are in their Errors.
//
// Patterns without "..." name the packages to work on (go generate runs
// hookgen on "."): they are loaded with types at once, saving the listing
// pass, and those whose files mention no directive are then treated as if
// they had not been type-checked.
func Load(cfg Config) ([]*Package, *Stats, error) {
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	st := &Stats{}
	base := packages.Config{
		Dir:        cfg.Dir,
		Env:        cfg.Env,
		BuildFlags: BuildFlags(cfg.Tags),
		Tests:      false,
	}
	const (
		listMode = packages.NeedName | packages.NeedFiles | packages.NeedModule
		fullMode = listMode | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo
	)
	wild := slices.ContainsFunc(patterns, func(p string) bool { return strings.Contains(p, "...") })
	mode := fullMode
	if wild {
		mode = listMode
	}
	t0 := time.Now()
	list := base
	list.Mode = mode
	listed, err := packages.Load(&list, patterns...)
	if err != nil {
		return nil, st, err
	}
	if wild {
		st.List = time.Since(t0)
	} else {
		st.Types = time.Since(t0)
	}
	t1 := time.Now()

	var out []*Package
	byPath := map[string]*Package{}
	var candidates []string
	for _, lp := range listed {
		p := &Package{PkgPath: lp.PkgPath, Name: lp.Name, Dir: lp.Dir}
		if p.Dir == "" {
			p.Dir = dirOf(lp)
		}
		if onlyExcluded(lp) {
			// Every file is excluded by the build tags: typically a directory
			// whose only Go file is a stale hookgen_gen.go. It has no
			// directives.
			out = append(out, p)
			continue
		}
		if errs := listErrors(lp.Errors); len(errs) > 0 {
			p.Errors = convert(errs)
			out = append(out, p)
			continue
		}
		if lp.Module == nil || !lp.Module.Main {
			// The standard library or a dependency: never written to.
			continue
		}
		for _, f := range lp.GoFiles {
			src, err := os.ReadFile(f)
			if err != nil {
				p.Errors = append(p.Errors, Error{Msg: err.Error()})
				break
			}
			if Mentions(src) {
				p.Candidate = true
				break
			}
		}
		out = append(out, p)
		byPath[p.PkgPath] = p
		if !p.Candidate || len(p.Errors) > 0 {
			continue
		}
		candidates = append(candidates, p.PkgPath)
		if !wild {
			p.Pkg = lp
			p.Errors = convert(relevant(lp.Errors))
		}
	}
	if wild {
		out = append(out, orphans(cfg.Dir, patterns, out)...)
	}
	st.Packages = len(out)
	st.Candidates = len(candidates)
	st.Scan = time.Since(t1)
	slices.SortFunc(out, func(a, b *Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	if len(candidates) == 0 || !wild {
		return out, st, nil
	}

	t2 := time.Now()
	full := base
	full.Mode = fullMode
	typed, err := packages.Load(&full, candidates...)
	if err != nil {
		return nil, st, err
	}
	for _, tp := range typed {
		p := byPath[tp.PkgPath]
		if p == nil {
			continue
		}
		p.Pkg = tp
		p.Errors = append(p.Errors, convert(relevant(tp.Errors))...)
	}
	for _, path := range candidates {
		if p := byPath[path]; p.Pkg == nil && len(p.Errors) == 0 {
			p.Errors = append(p.Errors, Error{Msg: fmt.Sprintf("package %s was listed but not loaded", path)})
		}
	}
	st.Types = time.Since(t2)
	return out, st, nil
}

// listErrors returns the errors of a package that go list itself reported
// (a bad import path, a missing package…), leaving out parse and type errors,
// which only matter for candidates.
func listErrors(errs []packages.Error) []packages.Error {
	var out []packages.Error
	for _, e := range errs {
		if e.Kind == packages.ListError && !compileOutput(e) {
			out = append(out, e)
		}
	}
	return out
}

// dirOf returns the directory of a package's files when go list gave none.
func dirOf(p *packages.Package) string {
	for _, fs := range [][]string{p.GoFiles, p.IgnoredFiles, p.OtherFiles} {
		if len(fs) > 0 {
			return filepath.Dir(fs[0])
		}
	}
	return ""
}

// onlyExcluded reports whether go list found Go files in the package's
// directory but the build tags exclude all of them.
func onlyExcluded(p *packages.Package) bool {
	if len(p.GoFiles) > 0 || len(p.IgnoredFiles) == 0 {
		return false
	}
	for _, e := range p.Errors {
		if !strings.Contains(e.Msg, "build constraints exclude all Go files") {
			return false
		}
	}
	return true
}

// generated matches the type errors a load with the hookgen tag produces by
// design: uses of the identifiers hookgen generates (RegisterHookflow,
// <Type>Plugin, DeclaredHooks, HookflowGuidance and HookflowInterceptors),
// in this package or an imported one.
var generated = regexp.MustCompile(`^undefined: (?:[\pL_][\pL\pN_]*\.)?(?:RegisterHookflow|DeclaredHooks|HookflowGuidance|HookflowInterceptors|[\pL_][\pL\pN_]*Plugin)$`)

// relevant drops the type errors that only say a generated identifier is
// missing, and the compiler's output for the package itself: without
// NeedDeps, go list -export compiles the loaded packages too, and the type
// checker reports the same errors, with positions and without the expected
// ones.
func relevant(errs []packages.Error) []packages.Error {
	var out []packages.Error
	for _, e := range errs {
		if e.Kind == packages.TypeError && generated.MatchString(e.Msg) || compileOutput(e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// compileOutput reports whether e is the compiler's output for a package, as
// go list -export reports it: "# <package>" then the compiler's lines.
func compileOutput(e packages.Error) bool {
	return e.Kind == packages.ListError && e.Pos == "" && strings.HasPrefix(e.Msg, "# ")
}

func convert(errs []packages.Error) []Error {
	out := make([]Error, 0, len(errs))
	seen := map[Error]bool{}
	for _, e := range errs {
		x := Error{Pos: e.Pos, Msg: e.Msg}
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Mentions reports whether src has a line that starts (after blanks) with a
// "//" comment whose text, after optional blanks, is "hook" or "mcp" in any
// case followed, after optional blanks, by a colon: every directive and every
// look-alike hookgen reports. Directives only count in doc comments, which
// start their line, so a "//hook:" after code or inside a comment's text does
// not make a package a candidate.
func Mentions(src []byte) bool {
	for i := 0; i < len(src); {
		j := bytes.Index(src[i:], slashes)
		if j < 0 {
			return false
		}
		j += i
		i = j + 2
		k := j - 1
		for k >= 0 && (src[k] == ' ' || src[k] == '\t') {
			k--
		}
		if k >= 0 && src[k] != '\n' {
			continue
		}
		if mentionAt(src[j+2:]) {
			return true
		}
	}
	return false
}

var slashes = []byte("//")

// mentionAt reports whether s (the text after "//") is blanks, then "hook" or
// "mcp" in any case, then blanks, then ':'.
func mentionAt(s []byte) bool {
	s = bytes.TrimLeft(s, " \t")
	var n int
	switch {
	case len(s) >= 4 && bytes.EqualFold(s[:4], []byte("hook")):
		n = 4
	case len(s) >= 3 && bytes.EqualFold(s[:3], []byte("mcp")):
		n = 3
	default:
		return false
	}
	s = bytes.TrimLeft(s[n:], " \t")
	return len(s) > 0 && s[0] == ':'
}

// Position parses a "file:line:col" position of an Error; ok is false when
// pos has no line.
func Position(pos string) (p token.Position, ok bool) {
	var line, col int
	rest := pos
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		if _, err := fmt.Sscanf(rest[i+1:], "%d", &col); err == nil {
			rest = rest[:i]
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		if _, err := fmt.Sscanf(rest[i+1:], "%d", &line); err == nil {
			rest = rest[:i]
		}
	}
	if line == 0 {
		if col != 0 {
			line, col = col, 0
		} else {
			return token.Position{}, false
		}
	}
	return token.Position{Filename: rest, Line: line, Column: col}, true
}

// orphans finds, under the directories of "dir/..." patterns, the
// directories that hold a hookgen_gen.go but are not among the listed
// packages: go list skips a directory whose only Go file is excluded by the
// build tags, as a stale generated file is. Each is returned as a package
// without directives, so that its file is removed. The walk skips what go
// list skips: testdata, vendor, names starting with "." or "_", and nested
// modules.
func orphans(dir string, patterns []string, listed []*Package) []*Package {
	known := map[string]bool{}
	for _, p := range listed {
		known[filepath.Clean(p.Dir)] = true
	}
	var out []*Package
	for _, pat := range patterns {
		root, ok := strings.CutSuffix(pat, "/...")
		if !ok || !(root == "." || root == ".." || strings.HasPrefix(root, "./") || strings.HasPrefix(root, "../") || filepath.IsAbs(root)) {
			continue
		}
		if !filepath.IsAbs(root) {
			base := dir
			if base == "" {
				base, _ = os.Getwd()
			}
			root = filepath.Join(base, root)
		}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				name := d.Name()
				if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				if path != root {
					if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
						return filepath.SkipDir
					}
				}
				return nil
			}
			if d.Name() != GenFile {
				return nil
			}
			pdir := filepath.Dir(path)
			if !known[pdir] {
				known[pdir] = true
				out = append(out, &Package{PkgPath: pdir, Dir: pdir})
			}
			return nil
		})
	}
	return out
}
