package analyze

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// Input is a type-checked package.
type Input struct {
	Fset  *token.FileSet
	Files []*ast.File // in any order
	Types *types.Package
	Info  *types.Info // with Defs
}

// Analyze reads the directives of in and returns the package model and every
// diagnostic (errors and warnings), sorted by position. The model is nil when
// there is an error; it is empty (Package.Empty) when the package has no
// directive.
//
// exts analyze the directives of hookgen's extensions (package ext), in
// order; reg must hold their definitions.
func Analyze(in Input, reg *directive.Registry, exts ...Analyzer) (*Package, []directive.Diagnostic) {
	a := &analyzer{
		in:    in,
		reg:   reg,
		exts:  exts,
		types: map[string]*typeSite{},
	}
	a.qual = func(p *types.Package) string {
		if p == in.Types {
			return ""
		}
		return p.Name()
	}
	files := slices.Clone(in.Files)
	slices.SortFunc(files, func(x, y *ast.File) int {
		return strings.Compare(in.Fset.File(x.Pos()).Name(), in.Fset.File(y.Pos()).Name())
	})
	for _, f := range files {
		a.file(f)
	}
	p := a.build()
	directive.SortDiagnostics(a.diags)
	for _, d := range a.diags {
		if d.Severity == directive.Error {
			return nil, a.diags
		}
	}
	return p, a.diags
}

type analyzer struct {
	in    Input
	reg   *directive.Registry
	exts  []Analyzer
	qual  types.Qualifier
	diags []directive.Diagnostic

	typeOrder []*typeSite
	types     map[string]*typeSite // by type name
	funcs     []*funcSite          // in source order
	pkgDirs   []*directive.Decoded // in the package clause's doc comments (extensions' directives)
}

// typeSite is a type declaration with //mcp: directives.
type typeSite struct {
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
	dirs []*directive.Decoded

	entity *Entity
	plugin *Plugin
	named  *types.Named
	// wired records, for the pointer decision, the methods hookgen wires up
	// and whether each needs a pointer receiver.
	wired []wiredMethod
	// args holds the directive's key positions.
	dec *directive.Decoded
	// ext are the type's directives that extensions own.
	ext []*directive.Decoded
}

type wiredMethod struct {
	name string
	ptr  bool
}

// funcSite is a function or method declaration with //hook: directives.
type funcSite struct {
	decl *ast.FuncDecl
	dirs []*directive.Decoded
}

func (a *analyzer) pos(p token.Pos) token.Position { return a.in.Fset.Position(p) }

func (a *analyzer) errorf(pos token.Position, format string, args ...any) {
	a.diags = append(a.diags, directive.Diagnostic{Pos: pos, Severity: directive.Error, Msg: fmt.Sprintf(format, args...)})
}

// refErrorf reports an error whose message refers to the declaration at
// ref: the message is format's, then " (<ref>)", then tail.
func (a *analyzer) refErrorf(pos, ref token.Position, tail, format string, args ...any) {
	a.diags = append(a.diags, directive.Diagnostic{Pos: pos, Severity: directive.Error, Msg: fmt.Sprintf(format, args...), Ref: ref, Tail: tail})
}

// build checks the collected directives and builds the model.
func (a *analyzer) build() *Package {
	tp := a.in.Types
	p := &Package{Path: tp.Path(), Name: tp.Name(), RuntimePath: tp.Path(), Types: tp}
	if tp.Name() == "main" {
		p.RuntimePath = "main"
	}
	for _, ts := range a.typeOrder {
		a.declare(ts)
	}
	passes := make([]*Pass, len(a.exts))
	for i, x := range a.exts {
		passes[i] = &Pass{a: a, name: x.Name(), Package: p}
	}
	for _, fs := range a.funcs {
		if fs = a.extFunc(passes, fs); len(fs.dirs) > 0 {
			a.hooks(p, fs)
		}
	}
	for _, ts := range a.typeOrder {
		switch {
		case ts.entity != nil:
			a.entityMethods(ts)
			p.Entities = append(p.Entities, ts.entity)
		case ts.plugin != nil:
			p.Plugins = append(p.Plugins, ts.plugin)
		}
	}
	a.extTypes(passes)
	a.unique(p)
	for i, x := range a.exts {
		x.Finish(passes[i])
	}
	a.clashes(p)
	slices.SortStableFunc(p.Entities, func(x, y *Entity) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), strings.Compare(x.DisplayName(), y.DisplayName()),
			strings.Compare(x.Name(), y.Name()), strings.Compare(x.TypeName, y.TypeName))
	})
	slices.SortStableFunc(p.Plugins, func(x, y *Plugin) int { return strings.Compare(x.Name, y.Name) })
	return p
}

// ServerPlaceholder stands for the server scope's path (the server's name)
// in the IDs of external hooks, which hookgen cannot know.
const ServerPlaceholder = "<server>"
