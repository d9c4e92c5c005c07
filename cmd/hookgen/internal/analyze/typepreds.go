package analyze

// Type predicates over go/types.

import (
	"go/types"
)

// named returns t as a *types.Named, looking through aliases, or nil.
func named(t types.Type) *types.Named {
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// IsNamed reports whether t is (an instance of) the named type path.name.
func IsNamed(t types.Type, path, name string) bool {
	n := named(t)
	if n == nil {
		return false
	}
	o := n.Origin().Obj()
	return o.Pkg() != nil && o.Pkg().Path() == path && o.Name() == name
}

// IsPtrToNamed reports whether t is a pointer to the named type path.name.
func IsPtrToNamed(t types.Type, path, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && IsNamed(p.Elem(), path, name)
}

// isRequest reports whether t is *mcp.ServerRequest[*mcp.<params>], e.g.
// *mcp.CallToolRequest.
func isRequest(t types.Type, params string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n := named(p.Elem())
	return n != nil && IsNamed(n, PathMCP, "ServerRequest") && n.TypeArgs().Len() == 1 && IsPtrToNamed(n.TypeArgs().At(0), PathMCP, params)
}

var errorType = types.Universe.Lookup("error").Type()

// IsError reports whether t is the predeclared error type.
func IsError(t types.Type) bool { return types.Identical(t, errorType) }

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
