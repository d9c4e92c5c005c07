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
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/scope"
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
func Analyze(in Input, reg *directive.Registry) (*Package, []directive.Diagnostic) {
	a := &analyzer{
		in:    in,
		reg:   reg,
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
	sortDiags(a.diags)
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
	qual  types.Qualifier
	diags []directive.Diagnostic

	typeOrder []*typeSite
	types     map[string]*typeSite // by type name
	funcs     []*funcSite          // in source order
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
)

// owners maps the file's doc comments to their declarations.
func owners(f *ast.File) map[*ast.CommentGroup]owner {
	m := map[*ast.CommentGroup]owner{}
	set := func(g *ast.CommentGroup, o owner) {
		if g != nil {
			m[g] = o
		}
	}
	set(f.Doc, owner{kind: ownedOther, what: "a package clause"})
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
	for _, fs := range a.funcs {
		a.hooks(p, fs)
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
	a.unique(p)
	a.clashes(p)
	slices.SortStableFunc(p.Entities, func(x, y *Entity) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), strings.Compare(x.DisplayName(), y.DisplayName()),
			strings.Compare(x.Name(), y.Name()), strings.Compare(x.TypeName, y.TypeName))
	})
	slices.SortStableFunc(p.Plugins, func(x, y *Plugin) int { return strings.Compare(x.Name, y.Name) })
	return p
}

// declare turns a type's //mcp: directive into an entity or a plugin.
func (a *analyzer) declare(ts *typeSite) {
	var first *directive.Decoded
	var args []*directive.Decoded
	for _, d := range ts.dirs {
		switch {
		case isArg(d):
			args = append(args, d)
		case first == nil:
			first = d
		default:
			a.errorf(d.Directive.Pos, "%s already has %s (%s): a type declares one entity or plugin",
				ts.spec.Name.Name, first.Directive.Head(), a.short(first.Directive.Pos))
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
	doc := ""
	if ts.doc != nil {
		doc = strings.TrimSpace(ts.doc.Text())
	}
	switch v := first.Value.(type) {
	case directive.Plugin:
		ts.plugin = &Plugin{Name: v.Name, TypeName: name, FuncName: name + PluginSuffix, Pos: at}
		return
	case directive.Tool:
		if v.Description == "" {
			v.Description = doc
		}
		ts.entity = &Entity{Kind: KindTool, Tool: v}
	case directive.Resource:
		if v.Description == "" {
			v.Description = doc
		}
		if v.Name == "" {
			v.Name = name
		}
		ts.entity = &Entity{Kind: KindResource, Resource: v}
	case directive.ResourceTemplate:
		if v.Description == "" {
			v.Description = doc
		}
		if v.Name == "" {
			v.Name = name
		}
		ts.entity = &Entity{Kind: KindTemplate, Template: v}
	case directive.Prompt:
		if v.Description == "" {
			v.Description = doc
		}
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
			a.errorf(at, "prompt argument %q is already declared (%s)", v.Name, a.short(first))
			continue
		}
		seen[v.Name] = at
		out = append(out, v)
	}
	return out
}

// short renders a position for a message: the file's base name, line and
// column.
func (a *analyzer) short(p token.Position) string {
	p.Filename = baseName(p.Filename)
	return p.String()
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// hooks handles the //hook: directives of one function or method.
func (a *analyzer) hooks(p *Package, fs *funcSite) {
	decl := fs.decl
	fn, _ := a.in.Info.Defs[decl.Name].(*types.Func)
	if decl.Recv == nil {
		if decl.Type.TypeParams != nil {
			a.errorf(a.pos(decl.Name.Pos()), "%s is generic: a hook function cannot have type parameters", decl.Name.Name)
			return
		}
		for _, dec := range fs.dirs {
			h := a.external(dec, decl, fn, "function "+decl.Name.Name, "")
			if h != nil {
				p.Externals = append(p.Externals, h)
			}
		}
		return
	}
	recv, ptr := receiver(decl)
	ts := a.types[recv]
	if ts == nil || ts.entity == nil && ts.plugin == nil {
		for _, dec := range fs.dirs {
			if ts != nil && len(ts.dirs) > 0 {
				continue // the type's own directive is in error
			}
			a.errorf(dec.Directive.Pos, "%s is on a method of %s, which is neither an entity (//mcp:tool, //mcp:resource, //mcp:resource-template, //mcp:prompt) nor a plugin (//mcp:plugin)",
				dec.Directive.Head(), recv)
		}
		return
	}
	if ts.plugin != nil {
		for _, dec := range fs.dirs {
			h := a.external(dec, decl, fn, "method "+decl.Name.Name+" of plugin "+ts.plugin.TypeName, ts.plugin.Name)
			if h != nil {
				ts.plugin.Hooks = append(ts.plugin.Hooks, h)
			}
		}
		return
	}
	e := ts.entity
	ts.wired = append(ts.wired, wiredMethod{name: decl.Name.Name, ptr: ptr})
	for _, dec := range fs.dirs {
		hv := dec.Value.(directive.HookDirective)
		if hv.HasFlow && hv.Flow != e.Kind.Flow() {
			arg, _ := dec.Directive.Arg("flow")
			a.errorf(arg.ValuePos, "flow %q does not fit an embedded hook of %s %s: its hooks run in %s (leave flow= out, or move the hook to a plugin or a top-level function)",
				string(hv.Flow), e.Kind, e.TypeName, e.Kind.Flow())
			continue
		}
		e.Hooks = append(e.Hooks, a.newHook(dec, decl, e.Kind.Flow(), e.Kind.View()))
	}
}

// newHook builds a Hook from a valid directive.
func (a *analyzer) newHook(dec *directive.Decoded, decl *ast.FuncDecl, flow flows.ID, view View) *HookDecl {
	hv := dec.Value.(directive.HookDirective)
	name := hv.Name
	if name == "" {
		name = decl.Name.Name
	}
	namePos := dec.Directive.NamePos
	if arg, ok := dec.Directive.Arg("name"); ok {
		namePos = arg.ValuePos
	}
	return &HookDecl{
		Stage: hv.Stage, Flow: flow, Priority: hv.Priority, Name: name, Func: decl.Name.Name, View: view,
		Pos: dec.Directive.Pos, NamePos: namePos, FuncPos: a.pos(decl.Name.Pos()),
	}
}

// external builds an external hook (a top-level function or a plugin
// method) and checks its flow and signature.
func (a *analyzer) external(dec *directive.Decoded, decl *ast.FuncDecl, fn *types.Func, what, plugin string) *HookDecl {
	hv := dec.Value.(directive.HookDirective)
	d := dec.Directive
	if !hv.HasFlow {
		a.errorf(d.NamePos, "missing required key %q for %s: %s is an external hook, which needs flow=", "flow", d.Head(), what)
		return nil
	}
	if fn == nil {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	view, listOf, ok := a.externalView(sig, hv.Flow)
	if !ok {
		hint := ""
		if sig.Params().Len() == 1 && isNamed(sig.Params().At(0).Type(), PathFlows, "ToolCall") {
			hint = " (an external hook sees every tool: take *flows.Context, or put the hook on the tool's type)"
		}
		a.errorf(a.pos(decl.Name.Pos()), "hook %s (%s) must be %s, got %s%s",
			decl.Name.Name, hv.Flow, externalWant(hv.Flow), types.TypeString(sig, a.qual), hint)
		return nil
	}
	h := a.newHook(dec, decl, hv.Flow, view)
	h.ListOf = listOf
	return h
}

// flowView returns the typed view an external hook of flow may take in
// addition to *flows.Context, from the flow table: for a list, also the
// mcp result type name. A tool call's view is typed by one tool's types,
// so only the tool's own (embedded) hooks take it.
func flowView(flow flows.ID) (view View, listOf string, ok bool) {
	if !flow.Valid() {
		return 0, "", false
	}
	info := flow.Info()
	switch info.View {
	case flows.ViewContext, flows.ViewToolCall:
		return 0, "", false
	case flows.ViewList:
		return info.View, info.Result, true
	}
	return info.View, "", true
}

// ViewTypeName returns the flows package's name for the view's type.
func ViewTypeName(v View) string { return v.String() }

// externalView returns the view of an external hook's signature for flow.
func (a *analyzer) externalView(sig *types.Signature, flow flows.ID) (View, string, bool) {
	if sig.TypeParams().Len() > 0 || sig.Variadic() || sig.Params().Len() != 1 || sig.Results().Len() != 1 || !isError(sig.Results().At(0).Type()) {
		return 0, "", false
	}
	t := sig.Params().At(0).Type()
	if isPtrToNamed(t, PathFlows, "Context") {
		return ViewContext, "", true
	}
	view, listOf, ok := flowView(flow)
	if !ok {
		return 0, "", false
	}
	if view == ViewList {
		if n := named(t); n != nil && isNamed(n, PathFlows, "List") && n.TypeArgs().Len() == 1 && isPtrToNamed(n.TypeArgs().At(0), PathMCP, listOf) {
			return ViewList, listOf, true
		}
		return 0, "", false
	}
	if isNamed(t, PathFlows, view.String()) {
		return view, "", true
	}
	return 0, "", false
}

func externalWant(flow flows.ID) string {
	want := "func(*flows.Context) error"
	if view, listOf, ok := flowView(flow); ok {
		v := "flows." + view.String()
		if view == ViewList {
			v += "[*mcp." + listOf + "]"
		}
		want += " or func(" + v + ") error"
	}
	return want
}

// receiver returns the base type name of a method's receiver and whether it
// is a pointer.
func receiver(decl *ast.FuncDecl) (string, bool) {
	if len(decl.Recv.List) == 0 {
		return "", false
	}
	t := decl.Recv.List[0].Type
	ptr := false
	for {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.StarExpr:
			t, ptr = x.X, true
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name, ptr
		}
		return "", ptr
	}
}

// entityMethods checks an entity's work method, Complete, hook signatures
// and constructor, and decides whether its type parameter is T or *T.
func (a *analyzer) entityMethods(ts *typeSite) {
	e := ts.entity
	named := ts.named
	recv := e.TypeName
	m, ptr, found := a.method(named, e.Kind.Method())
	if !found {
		hint := ""
		if best, ok := suggest.Closest(e.Kind.Method(), a.methodNames(named)); ok {
			hint = fmt.Sprintf(" (did you mean to rename %s?)", best)
		}
		a.errorf(e.Pos, "%s %s has no %s method: want func (%s) %s%s%s", e.Kind, recv, e.Kind.Method(), recv, e.Kind.Method(), a.mainWant(e.Kind, nil, nil), hint)
	} else {
		ts.wired = append(ts.wired, wiredMethod{name: m.Name(), ptr: ptr})
		a.mainSignature(ts, m)
	}
	if e.Kind != KindTool {
		if c, cptr, ok := a.method(named, "Complete"); ok {
			sig := c.Type().(*types.Signature)
			if !requestSig(sig, "CompleteParams", "CompleteResult") {
				a.errorf(a.methodPos(c, e), "Complete of %s %s must be func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error), got %s",
					e.Kind, recv, types.TypeString(sig, a.qual))
			} else {
				e.Complete = true
				ts.wired = append(ts.wired, wiredMethod{name: c.Name(), ptr: cptr})
			}
		}
	}
	for _, h := range e.Hooks {
		fn, _, _ := a.method(named, h.Func)
		if fn == nil {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if !a.embeddedSig(sig, e) {
			a.errorf(h.FuncPos, "hook %s of %s %s must be %s, got %s", h.Func, e.Kind, recv, a.embeddedWant(e), types.TypeString(sig, a.qual))
		}
	}
	for _, w := range ts.wired {
		if w.ptr {
			e.Pointer = true
		}
	}
	a.constructor(ts)
}

// method finds a method of T or *T by name (including promoted methods); ptr
// reports that only *T has it.
func (a *analyzer) method(named *types.Named, name string) (fn *types.Func, ptr, ok bool) {
	pkg := a.in.Types
	sel := types.NewMethodSet(types.NewPointer(named)).Lookup(pkg, name)
	if sel == nil {
		return nil, false, false
	}
	fn, ok = sel.Obj().(*types.Func)
	if !ok {
		return nil, false, false
	}
	return fn, types.NewMethodSet(named).Lookup(pkg, name) == nil, true
}

func (a *analyzer) methodNames(named *types.Named) []string {
	ms := types.NewMethodSet(types.NewPointer(named))
	out := make([]string, 0, ms.Len())
	for i := range ms.Len() {
		out = append(out, ms.At(i).Obj().Name())
	}
	return out
}

// methodPos returns the position of a method's name, or the entity's type
// name when the method is declared elsewhere (promoted from another
// package).
func (a *analyzer) methodPos(fn *types.Func, e *Entity) token.Position {
	if fn.Pkg() == a.in.Types && fn.Pos().IsValid() {
		return a.pos(fn.Pos())
	}
	return e.Pos
}

// mainWant renders the wanted signature of an entity's work method.
func (a *analyzer) mainWant(k Kind, in, out types.Type) string {
	switch k {
	case KindTool:
		i, o := "In", "Out"
		if in != nil {
			i = types.TypeString(in, a.qual)
		}
		if out != nil {
			o = types.TypeString(out, a.qual)
		}
		return "(context.Context, *mcp.CallToolRequest, " + i + ") (" + o + ", error)"
	case KindResource, KindTemplate:
		return "(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)"
	}
	return "(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error)"
}

// mainSignature checks the work method's signature and records a tool's
// input and output types.
func (a *analyzer) mainSignature(ts *typeSite, m *types.Func) {
	e := ts.entity
	sig := m.Type().(*types.Signature)
	bad := func(extra string) {
		a.errorf(a.methodPos(m, e), "%s of %s %s must be func%s, got %s%s", m.Name(), e.Kind, e.TypeName,
			a.mainWant(e.Kind, nil, nil), types.TypeString(sig, a.qual), extra)
	}
	switch e.Kind {
	case KindTool:
		ps, rs := sig.Params(), sig.Results()
		if sig.Variadic() || ps.Len() != 3 || rs.Len() != 2 || !isNamed(ps.At(0).Type(), "context", "Context") ||
			!isRequest(ps.At(1).Type(), "CallToolParamsRaw") || !isError(rs.At(1).Type()) {
			bad("")
			return
		}
		in := ps.At(2).Type()
		a.schemaVar(ts, "inputschema", e.Tool.InputSchema)
		a.schemaVar(ts, "outputschema", e.Tool.OutputSchema)
		if e.Tool.InputSchema == "" && !objectType(in) {
			a.errorf(a.methodPos(m, e), "input type %s of tool %s must be a struct, a map with string keys or any (its JSON schema must be an object), or the tool needs inputschema=",
				types.TypeString(in, a.qual), e.TypeName)
			return
		}
		e.In, e.Out = in, rs.At(0).Type()
	case KindResource, KindTemplate:
		if !requestSig(sig, "ReadResourceParams", "ReadResourceResult") {
			bad("")
		}
	case KindPrompt:
		if !requestSig(sig, "GetPromptParams", "GetPromptResult") {
			bad("")
		}
	}
}

// schemaVar checks that the value of a schema key names a package-level
// variable.
func (a *analyzer) schemaVar(ts *typeSite, key, name string) {
	if name == "" {
		return
	}
	if _, ok := a.in.Types.Scope().Lookup(name).(*types.Var); ok {
		return
	}
	arg, _ := ts.dec.Directive.Arg(key)
	var vars []string
	for _, n := range a.in.Types.Scope().Names() {
		if _, ok := a.in.Types.Scope().Lookup(n).(*types.Var); ok {
			vars = append(vars, n)
		}
	}
	hint := ""
	if best, ok := suggest.Closest(name, vars); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	a.errorf(arg.ValuePos, "%s=%s: no package-level variable %s in package %s%s", key, name, name, a.in.Types.Name(), hint)
}

// requestSig reports whether sig is func(context.Context,
// *mcp.ServerRequest[*mcp.<params>]) (*mcp.<result>, error).
func requestSig(sig *types.Signature, params, result string) bool {
	ps, rs := sig.Params(), sig.Results()
	return !sig.Variadic() && ps.Len() == 2 && rs.Len() == 2 && isNamed(ps.At(0).Type(), "context", "Context") &&
		isRequest(ps.At(1).Type(), params) && isPtrToNamed(rs.At(0).Type(), PathMCP, result) && isError(rs.At(1).Type())
}

// embeddedSig reports whether sig is the embedded hook signature of e.
func (a *analyzer) embeddedSig(sig *types.Signature, e *Entity) bool {
	if sig.Variadic() || sig.Params().Len() != 1 || sig.Results().Len() != 1 || !isError(sig.Results().At(0).Type()) {
		return false
	}
	t := sig.Params().At(0).Type()
	switch e.Kind {
	case KindTool:
		n := named(t)
		if n == nil || !isNamed(n, PathFlows, "ToolCall") || n.TypeArgs().Len() != 2 {
			return false
		}
		if e.In == nil {
			return true // the work method is in error; its types are unknown
		}
		return types.Identical(n.TypeArgs().At(0), e.In) && types.Identical(n.TypeArgs().At(1), e.Out)
	case KindResource, KindTemplate:
		return isNamed(t, PathFlows, "ResourceRead")
	}
	return isNamed(t, PathFlows, "PromptGet")
}

func (a *analyzer) embeddedWant(e *Entity) string {
	switch e.Kind {
	case KindTool:
		if e.In == nil {
			return "func(flows.ToolCall[In, Out]) error with the input and output types of Execute"
		}
		return "func(flows.ToolCall[" + types.TypeString(e.In, a.qual) + ", " + types.TypeString(e.Out, a.qual) + "]) error"
	case KindResource, KindTemplate:
		return "func(flows.ResourceRead) error"
	}
	return "func(flows.PromptGet) error"
}

// constructor finds and checks the entity's constructor: New<T> (or
// new<T> for an unexported T) in the package.
func (a *analyzer) constructor(ts *typeSite) {
	e := ts.entity
	name := "New" + e.TypeName
	obj := a.in.Types.Scope().Lookup(name)
	if obj == nil && e.TypeName != "" && 'a' <= e.TypeName[0] && e.TypeName[0] <= 'z' {
		name = "new" + strings.ToUpper(e.TypeName[:1]) + e.TypeName[1:]
		obj = a.in.Types.Scope().Lookup(name)
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return
	}
	at := a.pos(fn.Pos())
	sig := fn.Type().(*types.Signature)
	t := types.Type(ts.named)
	pt := types.NewPointer(t)
	rs := sig.Results()
	okShape := sig.TypeParams().Len() == 0 && (rs.Len() == 1 || rs.Len() == 2 && isError(rs.At(1).Type()))
	var ptr bool
	if okShape {
		switch {
		case types.Identical(rs.At(0).Type(), pt):
			ptr = true
		case types.Identical(rs.At(0).Type(), t):
		default:
			okShape = false
		}
	}
	if !okShape {
		a.errorf(at, "%s, the constructor of %s %s, must return *%s or %s, optionally with an error; got %s",
			name, e.Kind, e.TypeName, e.TypeName, e.TypeName, types.TypeString(sig, a.qual))
		return
	}
	if !ptr && e.Pointer {
		var ms []string
		for _, w := range ts.wired {
			if w.ptr {
				ms = append(ms, w.name)
			}
		}
		a.errorf(at, "%s returns %s, but %s of %s has a pointer receiver: return *%s, or use value receivers",
			name, e.TypeName, strings.Join(ms, ", "), e.TypeName, e.TypeName)
		return
	}
	e.Pointer = e.Pointer || ptr
	e.Ctor = name
}

// unique reports entities, plugins and hook IDs that share a name.
func (a *analyzer) unique(p *Package) {
	type first struct {
		what string
		pos  token.Position
	}
	names := map[string]first{}
	// Entities in source order: the later one is reported.
	for _, ts := range a.typeOrder {
		var key, what, arg string
		switch {
		case ts.entity != nil:
			e := ts.entity
			switch e.Kind {
			case KindTool:
				key, what, arg = "tool\x00"+e.Name(), "tool name", "name"
			case KindResource, KindTemplate:
				key, what, arg = "resource\x00"+e.Name(), "URI", "uri"
			case KindPrompt:
				key, what, arg = "prompt\x00"+e.Name(), "prompt name", "name"
			}
		case ts.plugin != nil:
			key, what, arg = "plugin\x00"+ts.plugin.Name, "plugin name", "name"
		default:
			continue
		}
		value := key[strings.IndexByte(key, 0)+1:]
		if f, dup := names[key]; dup {
			at := ts.dec.Directive.NamePos
			if x, ok := ts.dec.Directive.Arg(arg); ok {
				at = x.ValuePos
			}
			a.errorf(at, "%s %q is already used by %s (%s)", what, value, f.what, a.short(f.pos))
			continue
		}
		names[key] = first{what: ts.spec.Name.Name, pos: a.pos(ts.spec.Name.Pos())}
	}

	ids := map[string]*HookDecl{}
	check := func(id string, h *HookDecl) {
		if f, dup := ids[id]; dup {
			a.errorf(h.NamePos, "hook ID %q is already used by the hook on %s (%s): give one of them another name=", id, f.Func, a.short(f.Pos))
			return
		}
		ids[id] = h
	}
	for _, ts := range a.typeOrder {
		if e := ts.entity; e != nil {
			for _, h := range e.Hooks {
				check(EmbeddedID(p.RuntimePath, e.TypeName, h), h)
			}
		}
		if pl := ts.plugin; pl != nil {
			for _, h := range pl.Hooks {
				check(PluginID(ServerPlaceholder, pl.Name, h), h)
			}
		}
	}
	for _, h := range p.Externals {
		check(ExternalID(ServerPlaceholder, h), h)
	}
}

// clashes reports user declarations that have the name of an identifier
// hookgen generates.
func (a *analyzer) clashes(p *Package) {
	sc := a.in.Types.Scope()
	if len(p.Entities) > 0 || len(p.Externals) > 0 {
		if obj := sc.Lookup(RegisterFunc); obj != nil {
			a.errorf(a.pos(obj.Pos()), "%s is generated by hookgen for the directives of package %s: rename this declaration", RegisterFunc, p.Name)
		}
	}
	for _, pl := range p.Plugins {
		if obj := sc.Lookup(pl.FuncName); obj != nil {
			a.errorf(a.pos(obj.Pos()), "%s is generated by hookgen for plugin %s (%s): rename this declaration", pl.FuncName, pl.TypeName, a.short(pl.Pos))
		}
	}
}

// ServerPlaceholder stands for the server scope's path (the server's name)
// in the IDs of external hooks, which hookgen cannot know.
const ServerPlaceholder = "<server>"

// EmbeddedID returns the runtime ID of an embedded hook of type typeName in
// the package whose reflect path is pkgPath.
func EmbeddedID(pkgPath, typeName string, h *HookDecl) string {
	return flows.HookID(pkgPath+"."+typeName, h.Flow, h.Stage, h.Name)
}

// ExternalID returns the runtime ID of an external hook function registered
// on the scope whose path is owner.
func ExternalID(owner string, h *HookDecl) string {
	return flows.HookID(owner, h.Flow, h.Stage, h.Name)
}

// PluginID returns the runtime ID of a hook of the plugin named plugin,
// attached to the scope whose path is owner.
func PluginID(owner, plugin string, h *HookDecl) string {
	return ExternalID(scope.ChildPath(owner, scope.KindPlugin, plugin), h)
}

// --- type predicates ---

// named returns t as a *types.Named, looking through aliases, or nil.
func named(t types.Type) *types.Named {
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// isNamed reports whether t is (an instance of) the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n := named(t)
	if n == nil {
		return false
	}
	o := n.Origin().Obj()
	return o.Pkg() != nil && o.Pkg().Path() == path && o.Name() == name
}

func isPtrToNamed(t types.Type, path, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), path, name)
}

// isRequest reports whether t is *mcp.ServerRequest[*mcp.<params>], e.g.
// *mcp.CallToolRequest.
func isRequest(t types.Type, params string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n := named(p.Elem())
	return n != nil && isNamed(n, PathMCP, "ServerRequest") && n.TypeArgs().Len() == 1 && isPtrToNamed(n.TypeArgs().At(0), PathMCP, params)
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// objectType reports whether a tool input type has an object JSON schema,
// as the framework infers it: a struct or a map with string keys (pointers
// looked through), or any.
func objectType(t types.Type) bool {
	for {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			break
		}
		t = p.Elem()
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return true
	case *types.Map:
		b, ok := u.Key().Underlying().(*types.Basic)
		return ok && b.Kind() == types.String
	case *types.Interface:
		return u.Empty()
	}
	return false
}

func sortDiags(ds []directive.Diagnostic) {
	slices.SortStableFunc(ds, func(x, y directive.Diagnostic) int {
		return cmp.Or(
			strings.Compare(x.Pos.Filename, y.Pos.Filename),
			cmp.Compare(x.Pos.Line, y.Pos.Line),
			cmp.Compare(x.Pos.Column, y.Pos.Column),
			strings.Compare(x.Msg, y.Msg),
		)
	})
}
