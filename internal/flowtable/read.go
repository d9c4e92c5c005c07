package flowtable

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Row is one row of the flow table: the fields of a flows.Info literal.
type Row struct {
	ID, Const, Method, Alias string
	// Sent says the row's Direction is FromServer.
	Sent bool
	// Entity is the name of the row's EntityKind constant, "" for none.
	Entity string
	// View is the name of the row's ViewKind constant, "" for none.
	View string
	// Result is the name of the row's result type in the mcp package.
	Result string
	// Doc says what the flow's hooks can do.
	Doc string
}

// View is one typed view: a type of package flows declared as
// struct{ *Context } that a row of the table names.
type View struct {
	// Type is the view's type name, e.g. "ToolCall"; its ViewKind
	// constant is "View" + Type.
	Type string
	// Params are the names of its type parameters, e.g. In, Out.
	Params []string
	// Rows are the positions of the rows that name it.
	Rows []int
}

// Const returns the name of the view's ViewKind constant.
func (v View) Const() string { return "View" + v.Type }

// Table is the flow table with its views, in table order (a view where a
// row first names it).
type Table struct {
	Rows  []Row
	Views []View
}

// Read reads the flow table of the flows package in dir: table.go, and the
// view types declared in the package's other non-test files.
func Read(dir string) (*Table, error) {
	src, err := os.ReadFile(filepath.Join(dir, "table.go"))
	if err != nil {
		return nil, err
	}
	rows, err := ParseRows(src)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	decls := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_gen.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if err := viewTypes(name, src, decls); err != nil {
			return nil, err
		}
	}
	return Build(rows, decls)
}

// Build joins the rows with the view types declared in the package: decls
// maps a type declared as struct{ *Context } to its type parameters. A view
// named by one row may have no type parameters, or two: the entity's input
// and output. A view named by several rows has one, R, which is
// *mcp.<Result> of the row it belongs to.
func Build(rows []Row, decls map[string][]string) (*Table, error) {
	t := &Table{Rows: rows}
	at := map[string]int{}
	for i, r := range rows {
		if r.View == "" {
			continue
		}
		typ, ok := strings.CutPrefix(r.View, "View")
		if !ok || typ == "" || typ == "Context" {
			return nil, fmt.Errorf("row %s: View %s is not View<Type> of a typed view", r.ID, r.View)
		}
		params, ok := decls[typ]
		if !ok {
			return nil, fmt.Errorf("row %s: no view type %s (type %s struct{ *Context }) in the package", r.ID, typ, typ)
		}
		j, seen := at[typ]
		if !seen {
			j = len(t.Views)
			at[typ] = j
			t.Views = append(t.Views, View{Type: typ, Params: params})
		}
		t.Views[j].Rows = append(t.Views[j].Rows, i)
	}
	for _, v := range t.Views {
		switch {
		case len(v.Rows) == 1 && (len(v.Params) == 0 || len(v.Params) == 2):
		case len(v.Rows) > 1 && len(v.Params) == 1:
			for _, i := range v.Rows {
				if rows[i].Result == "" {
					return nil, fmt.Errorf("row %s: the view %s is shared by several rows, which its type parameter tells apart by Result: the row needs one", rows[i].ID, v.Type)
				}
			}
		default:
			return nil, fmt.Errorf("view %s has %d type parameters and %d rows: a view of one row has none or two (input, output), a view of several rows has one (the result)", v.Type, len(v.Params), len(v.Rows))
		}
	}
	return t, nil
}

// viewTypes adds the types of src declared as struct{ *Context } to decls.
func viewTypes(name string, src []byte, decls map[string][]string) error {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || len(st.Fields.List) != 1 || len(st.Fields.List[0].Names) != 0 {
				continue
			}
			star, ok := st.Fields.List[0].Type.(*ast.StarExpr)
			if id, isIdent := star.X.(*ast.Ident); !ok || !isIdent || id.Name != "Context" {
				continue
			}
			var params []string
			if ts.TypeParams != nil {
				for _, p := range ts.TypeParams.List {
					for _, n := range p.Names {
						params = append(params, n.Name)
					}
				}
			}
			decls[ts.Name.Name] = params
		}
	}
	return nil
}

// ParseRows finds `var table = [Count]Info{...}` in src and reads its rows.
// Their ID, Const, Method, Alias, Result and Doc fields must be string
// literals; Direction, Entity and View identifiers.
func ParseRows(src []byte) ([]Row, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "table.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	lit := tableLiteral(f)
	if lit == nil {
		return nil, fmt.Errorf("table.go: no `var table = [Count]Info{...}`")
	}
	var rows []Row
	seen := map[string]bool{}
	for _, e := range lit.Elts {
		cl, ok := e.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("%s: a row must be an Info literal", fset.Position(e.Pos()))
		}
		r, err := parseRow(fset, cl)
		if err != nil {
			return nil, err
		}
		if err := checkRow(fset.Position(cl.Pos()), r, seen); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func tableLiteral(f *ast.File) *ast.CompositeLit {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) == 1 && vs.Names[0].Name == "table" && len(vs.Values) == 1 {
				lit, _ := vs.Values[0].(*ast.CompositeLit)
				return lit
			}
		}
	}
	return nil
}

func parseRow(fset *token.FileSet, cl *ast.CompositeLit) (Row, error) {
	var r Row
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return r, fmt.Errorf("%s: rows must use field names", fset.Position(el.Pos()))
		}
		key, _ := kv.Key.(*ast.Ident)
		if key == nil {
			continue
		}
		switch key.Name {
		case "Direction", "Entity", "View":
			id, ok := kv.Value.(*ast.Ident)
			if !ok {
				return r, fmt.Errorf("%s: %s must be a constant's name", fset.Position(kv.Value.Pos()), key.Name)
			}
			switch {
			case key.Name == "Entity":
				r.Entity = id.Name
			case key.Name == "View":
				r.View = id.Name
			case id.Name == "FromClient" || id.Name == "FromServer":
				r.Sent = id.Name == "FromServer"
			default:
				return r, fmt.Errorf("%s: Direction must be FromClient or FromServer", fset.Position(kv.Value.Pos()))
			}
			continue
		}
		dst := map[string]*string{"ID": &r.ID, "Const": &r.Const, "Method": &r.Method, "Alias": &r.Alias, "Result": &r.Result, "Doc": &r.Doc}[key.Name]
		if dst == nil {
			continue
		}
		bl, ok := kv.Value.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return r, fmt.Errorf("%s: %s must be a string literal", fset.Position(kv.Value.Pos()), key.Name)
		}
		s, err := strconv.Unquote(bl.Value)
		if err != nil {
			return r, fmt.Errorf("%s: %v", fset.Position(bl.Pos()), err)
		}
		*dst = s
	}
	return r, nil
}

func checkRow(pos token.Position, r Row, seen map[string]bool) error {
	if r.ID == "" || r.Const == "" || r.Method == "" {
		return fmt.Errorf("%s: a row needs ID, Const and Method", pos)
	}
	if !token.IsIdentifier(r.Const) || !token.IsExported(r.Const) {
		return fmt.Errorf("%s: Const %q is not an exported Go identifier", pos, r.Const)
	}
	if r.Result != "" && (!token.IsIdentifier(r.Result) || !token.IsExported(r.Result)) {
		return fmt.Errorf("%s: Result %q is not an exported Go identifier", pos, r.Result)
	}
	if r.Entity != "" && !slices.Contains(entityKinds, r.Entity) {
		return fmt.Errorf("%s: Entity %s is not one of %s", pos, r.Entity, strings.Join(entityKinds, ", "))
	}
	if strings.Contains(strings.TrimSuffix(r.Method, "/*"), "*") || strings.Contains(r.Alias, "*") {
		return fmt.Errorf("%s: only a method may end in \"/*\", and nothing else may hold a *", pos)
	}
	if strings.Contains(r.Doc, "|") || strings.Contains(r.Doc, "\n") {
		return fmt.Errorf("%s: Doc is one line of a markdown table: no | or line break", pos)
	}
	dir := "received "
	if r.Sent {
		dir = "sent "
	}
	for _, k := range []string{"id " + r.ID, "const " + r.Const, dir + "method " + r.Method, dir + "method " + r.Alias} {
		if strings.HasSuffix(k, "method ") {
			continue
		}
		if seen[k] {
			return fmt.Errorf("%s: duplicate %s", pos, k)
		}
		seen[k] = true
	}
	return nil
}

// entityKinds are the EntityKind constants a row may name, with what the
// docs table says each resolves.
var entityKinds = []string{"EntityNone", "EntityTool", "EntityResource", "EntityPrompt", "EntityCompletion"}

var entityPhrases = map[string]string{
	"":                 "—",
	"EntityNone":       "—",
	"EntityTool":       "the tool",
	"EntityResource":   "the resource or template",
	"EntityPrompt":     "the prompt",
	"EntityCompletion": "the prompt or resource referred to",
}
