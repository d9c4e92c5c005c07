package analyze

// Hook directives: embedded and external hooks, and the views external hooks may take.

import (
	"go/ast"
	"go/types"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/flows"
)

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
		Timeout: hv.Timeout, OnFailure: hv.OnFailure,
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
		if sig.Params().Len() == 1 && IsNamed(sig.Params().At(0).Type(), PathFlows, "ToolCall") {
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
	if sig.TypeParams().Len() > 0 || sig.Variadic() || sig.Params().Len() != 1 || sig.Results().Len() != 1 || !IsError(sig.Results().At(0).Type()) {
		return 0, "", false
	}
	t := sig.Params().At(0).Type()
	if IsPtrToNamed(t, PathFlows, "Context") {
		return flows.ViewContext, "", true
	}
	view, listOf, ok := flowView(flow)
	if !ok {
		return 0, "", false
	}
	if view == flows.ViewList {
		if n := named(t); n != nil && IsNamed(n, PathFlows, "List") && n.TypeArgs().Len() == 1 && IsPtrToNamed(n.TypeArgs().At(0), PathMCP, listOf) {
			return flows.ViewList, listOf, true
		}
		return 0, "", false
	}
	if IsNamed(t, PathFlows, view.String()) {
		return view, "", true
	}
	return 0, "", false
}

func externalWant(flow flows.ID) string {
	want := "func(*flows.Context) error"
	if view, listOf, ok := flowView(flow); ok {
		v := "flows." + view.String()
		if view == flows.ViewList {
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
