package doccheck_test

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestLayoutNamesEveryPackage checks that the layout block of
// docs/layout.md names every package of the module that has non-test Go
// files, and that each path it lists is a directory of the tree.
func TestLayoutNamesEveryPackage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := layoutRows(src)
	if len(rows) == 0 {
		t.Fatal("docs/layout.md has no layout block (a ``` block after # Layout)")
	}
	for _, r := range rows {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.dir))); err != nil || !fi.IsDir() {
			t.Errorf("docs/layout.md lists %s/, which is not a directory of the tree", r.dir)
		}
	}
	pkgs := modulePackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages; the module listing is not being read", len(pkgs))
	}
	for _, p := range pkgs {
		if !layoutNames(rows, p) {
			t.Errorf("docs/layout.md does not name package %s: give it a row, or name it in its parent's row", p)
		}
	}
}

// TestLayoutNames pins how a layout row names a package: by its own path in
// the first column, or by its path below that row's directory as a word of
// the row's description.
func TestLayoutNames(t *testing.T) {
	const md = "# Layout\n\n```\n" +
		"flows/               the flow table\n" +
		"plugins/             audit, auth: one package each\n" +
		"cmd/hookgen/         main.go; internal/load (go/packages),\n" +
		"                     internal/ext/<name>\n" +
		"docs/                the reference\n" +
		"```\n\n```\nstray/   not the layout block\n```\n"
	rows := layoutRows([]byte(md))
	tests := []struct {
		pkg  string
		want bool
	}{
		{"flows", true},
		{"plugins/audit", true},
		{"plugins/auth", true},
		{"plugins/cache", false},
		{"cmd/hookgen", true},
		{"cmd/hookgen/internal/load", true},
		{"cmd/hookgen/internal/ext", false},
		{"flows/internal/gentable", false},
		{"stray", false},
		{"plugins/auth/oauth", false},
	}
	for _, tt := range tests {
		if got := layoutNames(rows, tt.pkg); got != tt.want {
			t.Errorf("layoutNames(%s) = %v, want %v", tt.pkg, got, tt.want)
		}
	}
}

// layoutRow is one entry of the layout block: a directory and the words of
// its description, continuation lines included.
type layoutRow struct {
	dir   string
	words []string
}

// layoutRows reads the first fenced block after the "# Layout" heading: a
// line that starts in column one with a path ending in "/" opens a row,
// an indented line continues the row above it.
func layoutRows(src []byte) []layoutRow {
	var rows []layoutRow
	seenHeading, inFence := false, false
	for line := range strings.Lines(string(src)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case !seenHeading:
			seenHeading = strings.TrimSpace(line) == "# Layout"
			continue
		case strings.HasPrefix(line, "```"):
			if inFence {
				return rows
			}
			inFence = true
			continue
		case !inFence:
			continue
		}
		first, rest, _ := strings.Cut(line, " ")
		if first != "" && strings.HasSuffix(first, "/") {
			rows = append(rows, layoutRow{dir: strings.TrimSuffix(first, "/")})
		} else if len(rows) > 0 {
			rest = line
		} else {
			continue
		}
		r := &rows[len(rows)-1]
		r.words = append(r.words, strings.FieldsFunc(rest, func(c rune) bool {
			return strings.ContainsRune(" \t,;:()", c)
		})...)
	}
	return rows
}

// layoutNames reports whether a row names pkg, a slash-separated path
// relative to the module root.
func layoutNames(rows []layoutRow, pkg string) bool {
	return slices.ContainsFunc(rows, func(r layoutRow) bool {
		if r.dir == pkg {
			return true
		}
		rel, ok := strings.CutPrefix(pkg, r.dir+"/")
		return ok && slices.Contains(r.words, rel)
	})
}

// modulePackages returns the packages of the module under root that have
// non-test Go files, as slash-separated paths relative to root.
func modulePackages(t *testing.T) []string {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedModule, Dir: root}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		if len(p.GoFiles) == 0 || p.Module == nil || !p.Module.Main {
			continue
		}
		rel, ok := strings.CutPrefix(p.PkgPath, p.Module.Path+"/")
		if !ok {
			continue
		}
		out = append(out, path.Clean(rel))
	}
	return out
}
