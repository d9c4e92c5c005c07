package analyze

// Constructors: NewT functions, called through the dependency container.

import (
	"go/types"
	"strings"
)

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
	okShape := sig.TypeParams().Len() == 0 && (rs.Len() == 1 || rs.Len() == 2 && IsError(rs.At(1).Type()))
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
