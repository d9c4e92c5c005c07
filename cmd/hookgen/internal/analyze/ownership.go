package analyze

// Comment ownership: which declaration a directive comment belongs to, and whether it sits where its directive may.

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// owner says what a comment group documents.
type owner struct {
	kind owned
	what string // for ownedOther: e.g. "a var declaration"
	spec *ast.TypeSpec
	gen  *ast.GenDecl
	fn   *ast.FuncDecl
}

type owned uint8

const (
	ownedNothing owned = iota
	ownedType
	ownedMethod
	ownedFunc
	ownedTypeGroup
	ownedOther
	ownedPackage
)

// owners maps the file's doc comments to their declarations.
func owners(f *ast.File) map[*ast.CommentGroup]owner {
	m := map[*ast.CommentGroup]owner{}
	set := func(g *ast.CommentGroup, o owner) {
		if g != nil {
			m[g] = o
		}
	}
	set(f.Doc, owner{kind: ownedPackage})
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				set(d.Doc, owner{kind: ownedMethod, fn: d})
			} else {
				set(d.Doc, owner{kind: ownedFunc, fn: d})
			}
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				if d.Lparen.IsValid() {
					set(d.Doc, owner{kind: ownedTypeGroup, gen: d})
				}
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && !d.Lparen.IsValid() {
						doc = d.Doc
					}
					set(doc, owner{kind: ownedType, spec: ts, gen: d})
					set(ts.Comment, owner{kind: ownedOther, what: "a line comment"})
				}
			default:
				what := "a " + d.Tok.String() + " declaration"
				set(d.Doc, owner{kind: ownedOther, what: what})
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						set(s.Doc, owner{kind: ownedOther, what: what})
						set(s.Comment, owner{kind: ownedOther, what: "a line comment"})
					case *ast.ImportSpec:
						set(s.Doc, owner{kind: ownedOther, what: what})
						set(s.Comment, owner{kind: ownedOther, what: "a line comment"})
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if fl, ok := n.(*ast.Field); ok {
			set(fl.Doc, owner{kind: ownedOther, what: "a field"})
			set(fl.Comment, owner{kind: ownedOther, what: "a line comment"})
		}
		return true
	})
	return m
}

// file collects the directives of one file.
func (a *analyzer) file(f *ast.File) {
	var own map[*ast.CommentGroup]owner
	for _, g := range f.Comments {
		for _, c := range g.List {
			if !mentions(c.Text) {
				continue
			}
			dec, diags := a.reg.ParseComment(c.Text, a.pos(c.Slash))
			a.diags = append(a.diags, diags...)
			if dec == nil {
				continue
			}
			if own == nil {
				own = owners(f)
			}
			a.place(dec, own[g])
		}
	}
}

// place attaches a decoded directive to the declaration it documents.
func (a *analyzer) place(dec *directive.Decoded, o owner) {
	d := dec.Directive
	var target directive.Target
	switch o.kind {
	case ownedType:
		target = directive.TargetType
	case ownedMethod:
		target = directive.TargetMethod
	case ownedFunc:
		target = directive.TargetFunc
	case ownedPackage:
		target = directive.TargetPackage
	case ownedTypeGroup:
		a.errorf(d.Pos, "%s is in the doc comment of a type group: put it in the doc comment of one type of the group", d.Head())
		return
	case ownedOther:
		a.errorf(d.Pos, "%s must be on a %s, not on %s", d.Head(), dec.Def.Targets, o.what)
		return
	default:
		a.errorf(d.Pos, "%s is not in the doc comment of a declaration (is a blank line separating them?)", d.Head())
		return
	}
	if e := dec.CheckTarget(target); e != nil {
		a.diags = append(a.diags, *e)
		return
	}
	switch o.kind {
	case ownedPackage:
		a.pkgDirs = append(a.pkgDirs, dec)
	case ownedType:
		name := o.spec.Name.Name
		ts := a.types[name]
		if ts == nil {
			doc := o.spec.Doc
			if doc == nil && !o.gen.Lparen.IsValid() {
				doc = o.gen.Doc
			}
			ts = &typeSite{spec: o.spec, doc: doc}
			a.types[name] = ts
			a.typeOrder = append(a.typeOrder, ts)
		}
		ts.dirs = append(ts.dirs, dec)
	default:
		if n := len(a.funcs); n > 0 && a.funcs[n-1].decl == o.fn {
			a.funcs[n-1].dirs = append(a.funcs[n-1].dirs, dec)
			return
		}
		a.funcs = append(a.funcs, &funcSite{decl: o.fn, dirs: []*directive.Decoded{dec}})
	}
}

// mentions is the cheap test for a comment line that may be hookgen's:
// "//", blanks, "hook" or "mcp" in any case, blanks, ':'.
func mentions(text string) bool {
	s := strings.TrimLeft(strings.TrimPrefix(text, "//"), " \t")
	switch {
	case len(s) >= 4 && strings.EqualFold(s[:4], "hook"):
		s = s[4:]
	case len(s) >= 3 && strings.EqualFold(s[:3], "mcp"):
		s = s[3:]
	default:
		return false
	}
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, ":") && strings.HasPrefix(text, "//")
}
