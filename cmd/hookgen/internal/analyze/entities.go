package analyze

// Entity declarations: the //mcp: types and their prompt arguments.

import (
	"cmp"
	"go/ast"
	"go/doc/comment"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// declare turns a type's //mcp: directive into an entity or a plugin.
func (a *analyzer) declare(ts *typeSite) {
	var first *directive.Decoded
	var args []*directive.Decoded
	for _, d := range ts.dirs {
		switch {
		case isArg(d):
			args = append(args, d)
		case a.owner(d) >= 0:
			ts.ext = append(ts.ext, d)
		case first == nil:
			first = d
		default:
			a.refErrorf(d.Directive.Pos, first.Directive.Pos, ": a type declares one entity or plugin", "%s already has %s",
				ts.spec.Name.Name, first.Directive.Head())
		}
	}
	if first == nil || !isPrompt(first) {
		for _, d := range args {
			a.errorf(d.Directive.Pos, "%s must be on a type declared with //mcp:prompt", d.Directive.Head())
		}
		args = nil
		if first == nil {
			return
		}
	}
	ts.dec = first
	name := ts.spec.Name.Name
	at := a.pos(ts.spec.Name.Pos())
	what := "an entity"
	if _, ok := first.Value.(directive.Plugin); ok {
		what = "a plugin"
	}
	switch {
	case ts.spec.Assign.IsValid():
		a.errorf(at, "%s is an alias: %s must be declared on a defined type", name, what)
		return
	case ts.spec.TypeParams != nil:
		a.errorf(at, "%s is generic: %s type cannot have type parameters", name, what)
		return
	}
	obj, _ := a.in.Info.Defs[ts.spec.Name].(*types.TypeName)
	if obj == nil {
		return // a type error, reported by the loader
	}
	named, _ := obj.Type().(*types.Named)
	if named == nil {
		return
	}
	switch named.Underlying().(type) {
	case *types.Interface:
		a.errorf(at, "%s is an interface type: %s needs a concrete type", name, what)
		return
	case *types.Pointer:
		a.errorf(at, "%s is a pointer type: %s cannot have methods", name, what)
		return
	}
	ts.named = named
	doc := Description(ts.doc)
	switch v := first.Value.(type) {
	case directive.Plugin:
		ts.plugin = &Plugin{Name: v.Name, TypeName: name, FuncName: name + PluginSuffix, Pos: at}
		return
	case directive.Tool:
		v.Description = cmp.Or(v.Description, doc)
		ts.entity = &Entity{Kind: KindTool, Tool: v}
	case directive.Resource:
		v.Description, v.Name = cmp.Or(v.Description, doc), cmp.Or(v.Name, name)
		ts.entity = &Entity{Kind: KindResource, Resource: v}
	case directive.ResourceTemplate:
		v.Description, v.Name = cmp.Or(v.Description, doc), cmp.Or(v.Name, name)
		ts.entity = &Entity{Kind: KindTemplate, Template: v}
	case directive.Prompt:
		v.Description = cmp.Or(v.Description, doc)
		v.Args = a.promptArgs(first, v.Args, args)
		ts.entity = &Entity{Kind: KindPrompt, Prompt: v}
	}
	ts.entity.TypeName = name
	ts.entity.Pos = at
}

func isArg(d *directive.Decoded) bool {
	_, ok := d.Value.(directive.PromptArg)
	return ok
}

func isPrompt(d *directive.Decoded) bool {
	_, ok := d.Value.(directive.Prompt)
	return ok
}

// promptArgs appends the //mcp:arg arguments to those of args= and reports
// names declared twice.
func (a *analyzer) promptArgs(prompt *directive.Decoded, list []directive.PromptArg, args []*directive.Decoded) []directive.PromptArg {
	out := slices.Clone(list)
	seen := map[string]token.Position{}
	if x, ok := prompt.Directive.Arg("args"); ok {
		for _, p := range list {
			seen[p.Name] = x.ValuePos
		}
	}
	for _, d := range args {
		v := d.Value.(directive.PromptArg)
		at := d.Directive.NamePos
		if x, ok := d.Directive.Arg("name"); ok {
			at = x.ValuePos
		}
		if first, dup := seen[v.Name]; dup {
			a.refErrorf(at, first, "", "prompt argument %q is already declared", v.Name)
			continue
		}
		seen[v.Name] = at
		out = append(out, v)
	}
	return out
}

// Description returns the default description of a declaration: the first
// paragraph of its doc comment (directives left out), on one line. The
// rest of the comment, often notes for the package's developers, is not
// sent to clients; set description= to send something else.
func Description(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	var p comment.Parser
	for _, b := range p.Parse(doc.Text()).Content {
		para, ok := b.(*comment.Paragraph)
		if !ok {
			continue
		}
		var sb strings.Builder
		for _, t := range para.Text {
			inlineText(&sb, t)
		}
		return strings.Join(strings.Fields(sb.String()), " ")
	}
	return ""
}

// inlineText appends the text of t, without markup, to sb.
func inlineText(sb *strings.Builder, t comment.Text) {
	switch t := t.(type) {
	case comment.Plain:
		sb.WriteString(string(t))
	case comment.Italic:
		sb.WriteString(string(t))
	case *comment.Link:
		for _, x := range t.Text {
			inlineText(sb, x)
		}
	case *comment.DocLink:
		for _, x := range t.Text {
			inlineText(sb, x)
		}
	}
}
