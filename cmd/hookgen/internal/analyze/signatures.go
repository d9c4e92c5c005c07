package analyze

// Signatures: the entity methods hookgen wires up, and the shapes they must have.

import (
	"fmt"
	"go/token"
	"go/types"

	"github.com/hookflow/hookflow/internal/suggest"
)

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
		if sig.Variadic() || ps.Len() != 3 || rs.Len() != 2 || !IsNamed(ps.At(0).Type(), "context", "Context") ||
			!isRequest(ps.At(1).Type(), "CallToolParamsRaw") || !IsError(rs.At(1).Type()) {
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
	return !sig.Variadic() && ps.Len() == 2 && rs.Len() == 2 && IsNamed(ps.At(0).Type(), "context", "Context") &&
		isRequest(ps.At(1).Type(), params) && IsPtrToNamed(rs.At(0).Type(), PathMCP, result) && IsError(rs.At(1).Type())
}

// embeddedSig reports whether sig is the embedded hook signature of e.
func (a *analyzer) embeddedSig(sig *types.Signature, e *Entity) bool {
	if sig.Variadic() || sig.Params().Len() != 1 || sig.Results().Len() != 1 || !IsError(sig.Results().At(0).Type()) {
		return false
	}
	t := sig.Params().At(0).Type()
	switch e.Kind {
	case KindTool:
		n := named(t)
		if n == nil || !IsNamed(n, PathFlows, "ToolCall") || n.TypeArgs().Len() != 2 {
			return false
		}
		if e.In == nil {
			return true // the work method is in error; its types are unknown
		}
		return types.Identical(n.TypeArgs().At(0), e.In) && types.Identical(n.TypeArgs().At(1), e.Out)
	case KindResource, KindTemplate:
		return IsNamed(t, PathFlows, "ResourceRead")
	}
	return IsNamed(t, PathFlows, "PromptGet")
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
