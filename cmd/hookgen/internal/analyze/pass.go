package analyze

// The seam for hookgen's extensions: an Analyzer reads the directives an
// extension owns, through a Pass.

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// An Analyzer is the analysis of an extension's directives (package
// ext). Analyze hands each one the directives whose values it owns, site by
// site in source order, then calls Finish once.
type Analyzer interface {
	// Name names the extension; its result is Package.Ext[Name()].
	Name() string
	// Owns reports whether v is the value of one of its directives.
	Owns(v directive.Value) bool
	// Func analyzes its directives (own, in source order) on a function or
	// method; others are the other directives on it. It returns those of
	// others that hookgen's core analysis should still read.
	Func(pass *Pass, decl *ast.FuncDecl, own, others []*directive.Decoded) []*directive.Decoded
	// Type analyzes one of its directives on a type declaration or in the
	// package clause's doc comment, after the core has read the type's
	// own directive. Analyze calls it in source order, files by name.
	Type(pass *Pass, dec *directive.Decoded, site Site)
	// Finish runs after every site, for checks across the package.
	Finish(pass *Pass)
}

// A Site is the declaration an extension's directive sits on: a type, or
// the package clause.
type Site struct {
	// Type is the type's declaration; nil for the package clause.
	Type *ast.TypeSpec
	// Entity or Plugin is what the type's own //mcp: directive declares;
	// both are nil when it has none, or when that directive is in error
	// (InError: its error is reported).
	Entity  *Entity
	Plugin  *Plugin
	InError bool
}

// A Pass is what an Analyzer sees of the package being analyzed: its
// syntax and types, the model so far, error reporting, and the place for
// its result.
type Pass struct {
	a    *analyzer
	name string
	// Package is the model being built; an Analyzer records its own
	// result with SetResult, not here.
	Package *Package
}

// Info returns the package's type information.
func (p *Pass) Info() *types.Info { return p.a.in.Info }

// Pos returns the position of pos.
func (p *Pass) Pos(pos token.Pos) token.Position { return p.a.pos(pos) }

// Lookup returns the package-level object named name, or nil.
func (p *Pass) Lookup(name string) types.Object { return p.a.in.Types.Scope().Lookup(name) }

// TypeString returns t as diagnostics write it: the package's own names
// unqualified, others by package name.
func (p *Pass) TypeString(t types.Type) string { return types.TypeString(t, p.a.qual) }

// Errorf reports an error at pos.
func (p *Pass) Errorf(pos token.Position, format string, args ...any) {
	p.a.errorf(pos, format, args...)
}

// RefErrorf reports an error whose message refers to the declaration at
// ref: the message is format's, then " (<ref>)", then tail.
func (p *Pass) RefErrorf(pos, ref token.Position, tail, format string, args ...any) {
	p.a.refErrorf(pos, ref, tail, format, args...)
}

// Result returns what the Analyzer recorded with SetResult, or nil.
func (p *Pass) Result() any { return p.Package.Ext[p.name] }

// SetResult records the Analyzer's result, which the renderer reads
// (Package.Ext). A package with a result is not empty.
func (p *Pass) SetResult(v any) {
	if p.Package.Ext == nil {
		p.Package.Ext = map[string]any{}
	}
	p.Package.Ext[p.name] = v
}

// extFunc lets the extensions take their directives off fs, in order. It
// returns fs with what is left for the core analysis.
func (a *analyzer) extFunc(passes []*Pass, fs *funcSite) *funcSite {
	for i, x := range a.exts {
		var own, others []*directive.Decoded
		for _, dec := range fs.dirs {
			if x.Owns(dec.Value) {
				own = append(own, dec)
			} else {
				others = append(others, dec)
			}
		}
		if len(own) > 0 {
			fs = &funcSite{decl: fs.decl, dirs: x.Func(passes[i], fs.decl, own, others)}
		}
	}
	return fs
}

// owner returns the index of the extension that owns dec, or -1.
func (a *analyzer) owner(dec *directive.Decoded) int {
	for i, x := range a.exts {
		if x.Owns(dec.Value) {
			return i
		}
	}
	return -1
}

// extTypes hands the extensions their directives on types and in the
// package clause, in source order (files by name).
func (a *analyzer) extTypes(passes []*Pass) {
	type item struct {
		dec  *directive.Decoded
		site Site
	}
	var items []item
	for _, d := range a.pkgDirs {
		items = append(items, item{dec: d})
	}
	for _, ts := range a.typeOrder {
		site := Site{Type: ts.spec, Entity: ts.entity, Plugin: ts.plugin, InError: ts.entity == nil && ts.plugin == nil && ts.dec != nil}
		for _, d := range ts.ext {
			items = append(items, item{dec: d, site: site})
		}
	}
	slices.SortFunc(items, func(x, y item) int {
		px, py := x.dec.Directive.Pos, y.dec.Directive.Pos
		return cmp.Or(strings.Compare(px.Filename, py.Filename), cmp.Compare(px.Offset, py.Offset))
	})
	for _, it := range items {
		if i := a.owner(it.dec); i >= 0 {
			a.exts[i].Type(passes[i], it.dec, it.site)
		}
	}
}
