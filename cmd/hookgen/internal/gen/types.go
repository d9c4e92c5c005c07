package gen

import (
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// typ renders a Go type as jennifer code, qualifying named types of other
// packages (jennifer writes the import) and keeping aliases as written.
func (g *renderer) typ(t types.Type) jen.Code {
	switch t := t.(type) {
	case *types.Alias:
		return g.obj(t.Obj(), t.TypeArgs())
	case *types.Named:
		return g.obj(t.Obj(), t.TypeArgs())
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return jen.Qual("unsafe", "Pointer")
		}
		return jen.Id(t.Name())
	case *types.Pointer:
		return jen.Op("*").Add(g.typ(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(g.typ(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(g.typ(t.Elem()))
	case *types.Map:
		return jen.Map(g.typ(t.Key())).Add(g.typ(t.Elem()))
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return jen.Chan().Op("<-").Add(g.typ(t.Elem()))
		case types.RecvOnly:
			return jen.Op("<-").Chan().Add(g.typ(t.Elem()))
		}
		return jen.Chan().Add(g.typ(t.Elem()))
	case *types.Signature:
		return jen.Func().Params(g.tuple(t.Params(), t.Variadic())...).Params(g.tuple(t.Results(), false)...)
	case *types.Struct:
		fields := make([]jen.Code, t.NumFields())
		for i := range t.NumFields() {
			f := t.Field(i)
			var c *jen.Statement
			if f.Embedded() {
				c = jen.Add(g.typ(f.Type()))
			} else {
				c = jen.Id(f.Name()).Add(g.typ(f.Type()))
			}
			if tag := t.Tag(i); tag != "" {
				if strings.Contains(tag, "`") {
					c.Op(strconv.Quote(tag))
				} else {
					c.Op("`" + tag + "`")
				}
			}
			fields[i] = c
		}
		return jen.Struct(fields...)
	case *types.Interface:
		if t.Empty() {
			return jen.Interface()
		}
		var items []jen.Code
		for i := range t.NumEmbeddeds() {
			items = append(items, g.typ(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			sig := m.Type().(*types.Signature)
			items = append(items, jen.Id(m.Name()).Params(g.tuple(sig.Params(), sig.Variadic())...).Params(g.tuple(sig.Results(), false)...))
		}
		return jen.Interface(items...)
	case *types.TypeParam:
		return jen.Id(t.Obj().Name())
	}
	return jen.Id(types.TypeString(t, nil))
}

// obj renders a named type or alias with its type arguments.
func (g *renderer) obj(o *types.TypeName, args *types.TypeList) jen.Code {
	var s *jen.Statement
	if o.Pkg() == nil || o.Pkg() == g.p.Types {
		s = jen.Id(o.Name())
	} else {
		s = jen.Qual(o.Pkg().Path(), o.Name())
	}
	if args.Len() > 0 {
		ts := make([]jen.Code, args.Len())
		for i := range args.Len() {
			ts[i] = g.typ(args.At(i))
		}
		s.Types(ts...)
	}
	return s
}

func (g *renderer) tuple(t *types.Tuple, variadic bool) []jen.Code {
	out := make([]jen.Code, t.Len())
	for i := range t.Len() {
		v := t.At(i)
		var c *jen.Statement
		if variadic && i == t.Len()-1 {
			c = jen.Op("...").Add(g.typ(v.Type().(*types.Slice).Elem()))
		} else {
			c = jen.Add(g.typ(v.Type()))
		}
		if v.Name() != "" {
			c = jen.Id(v.Name()).Add(c)
		}
		out[i] = c
	}
	return out
}

// walkType calls fn for the type name of every named type and alias in t.
func walkType(t types.Type, fn func(types.Object)) {
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Alias:
			fn(t.Obj())
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i))
			}
		case *types.Named:
			fn(t.Obj())
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i))
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for i := range t.Params().Len() {
				walk(t.Params().At(i).Type())
			}
			for i := range t.Results().Len() {
				walk(t.Results().At(i).Type())
			}
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		case *types.Interface:
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i))
			}
			for i := range t.NumExplicitMethods() {
				walk(t.ExplicitMethod(i).Type())
			}
		}
	}
	walk(t)
}
