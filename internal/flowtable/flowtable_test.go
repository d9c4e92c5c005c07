package flowtable_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/flowtable"
)

// TestGeneratedIsFresh fails when flows/table_gen.go does not match the flow
// table: run `go generate ./flows`. (internal/doccheck checks the docs
// table.)
func TestGeneratedIsFresh(t *testing.T) {
	tab, err := flowtable.Read("../../flows")
	if err != nil {
		t.Fatal(err)
	}
	want, err := tab.Go()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../flows/table_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("flows/table_gen.go is stale: run `go generate ./flows`")
	}
}

func TestParseRowsErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no table", "package flows\n", "no `var table"},
		{"missing method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB"}}`, "needs ID, Const and Method"},
		{"unexported const", `package flows
var table = [Count]Info{{ID: "a:b", Const: "ab", Method: "a/b"}}`, "not an exported Go identifier"},
		{"duplicate method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b"}, {ID: "a:c", Const: "AC", Method: "a/b"}}`, "duplicate received method a/b"},
		{"duplicate sent method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Direction: FromServer}, {ID: "a:c", Const: "AC", Method: "a/b", Direction: FromServer}}`, "duplicate sent method a/b"},
		{"bad direction", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Direction: Sideways}}`, "Direction must be FromClient or FromServer"},
		{"bad entity", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Entity: EntityWidget}}`, "Entity EntityWidget is not one of"},
		{"view not a name", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", View: "ToolCall"}}`, "View must be a constant's name"},
		{"doc breaks the table", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Doc: "a | b"}}`, "Doc is one line of a markdown table"},
		{"star inside", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/*/b"}}`, "only a method may end in"},
		{"not a literal", `package flows
var table = [Count]Info{{ID: id, Const: "AB", Method: "a/b"}}`, "must be a string literal"},
		{"positional", `package flows
var table = [Count]Info{{"a:b"}}`, "must use field names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := flowtable.ParseRows([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// A method is matched exactly before any prefix, in its own direction only:
// the same method may start one flow received and another sent.
func TestDirectionsAndPrefixes(t *testing.T) {
	src := `package flows
var table = [Count]Info{
	{ID: "a:ping", Const: "APing", Method: "ping"},
	{ID: "a:note", Const: "ANote", Method: "notes/*"},
	{ID: "a:special", Const: "ASpecial", Method: "notes/special"},
	{ID: "b:note", Const: "BNote", Method: "notes/*", Direction: FromServer},
	{ID: "b:ping", Const: "BPing", Method: "ping", Direction: FromServer},
}`
	got := generate(t, src, nil)
	for _, want := range []string{
		"func methodIndex(method string) int {\n\tswitch method {\n\tcase \"ping\":\n\t\treturn 0\n\tcase \"notes/special\":\n\t\treturn 2\n\t}\n\tif strings.HasPrefix(method, \"notes/\") {\n\t\treturn 1\n\t}\n\treturn -1\n}",
		"func sentIndex(method string) int {\n\tswitch method {\n\tcase \"ping\":\n\t\treturn 4\n\t}\n\tif strings.HasPrefix(method, \"notes/\") {\n\t\treturn 3\n\t}\n\treturn -1\n}",
		"\t\"strings\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated code lacks\n%s\n\ngot:\n%s", want, got)
		}
	}
}

// Each view's kind, name and spec come from the rows that name it: a view
// of one row knows its flow, a view of several finds it by its result
// type, a view of an input and an output type records both; IsResult
// checks the Result of each row that has one.
func TestViews(t *testing.T) {
	src := `package flows
var table = [Count]Info{
	{ID: "a:call", Const: "ACall", Method: "a/call", View: ViewCall, Result: "CallToolResult"},
	{ID: "a:list", Const: "AList", Method: "a/list", View: ViewList, Result: "ListToolsResult"},
	{ID: "b:list", Const: "BList", Method: "b/list", View: ViewList, Result: "ListPromptsResult"},
	{ID: "a:ping", Const: "APing", Method: "a/ping", View: ViewPing},
	{ID: "a:bare", Const: "ABare", Method: "a/bare"},
}`
	decls := map[string][]string{"Call": {"In", "Out"}, "List": {"R"}, "Ping": nil}
	got := generate(t, src, decls)
	for _, want := range []string{
		"\tViewContext ViewKind = iota\n\t// ViewCall is the kind of [Call], the view of a:call.\n\tViewCall\n\t// ViewList is the kind of [List], the view of a:list and b:list.\n\tViewList\n",
		`var viewKindNames = [...]string{"Context", "Call", "List", "Ping"}`,
		"func (Call[In, Out]) spec() viewSpec {\n\treturn viewSpec{kind: ViewCall, flow: ACall, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out]()}\n}",
		"func (List[R]) spec() viewSpec {\n\tt := reflect.TypeFor[R]()\n\treturn viewSpec{kind: ViewList, flow: resultFlow(ViewList, t), in: t}\n}",
		"func (Ping) spec() viewSpec {\n\treturn viewSpec{kind: ViewPing, flow: APing}\n}",
		"\tcase BList:\n\t\tr, ok := v.(*mcp.ListPromptsResult)\n\t\treturn ok && r != nil\n\t}\n\treturn v == nil\n}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated code lacks\n%s\n\ngot:\n%s", want, got)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name, rows string
		decls      map[string][]string
		want       string
	}{
		{"no view type", `{ID: "a:b", Const: "AB", Method: "a/b", View: ViewGone}`, nil, "no view type Gone"},
		{"not View<Type>", `{ID: "a:b", Const: "AB", Method: "a/b", View: Call}`, map[string][]string{"Call": nil}, "is not View<Type>"},
		{"shared view without a parameter", `{ID: "a:b", Const: "AB", Method: "a/b", View: ViewX}, {ID: "a:c", Const: "AC", Method: "a/c", View: ViewX}`,
			map[string][]string{"X": nil}, "view X has 0 type parameters and 2 rows"},
		{"shared view without a result", `{ID: "a:b", Const: "AB", Method: "a/b", View: ViewX, Result: "R1"}, {ID: "a:c", Const: "AC", Method: "a/c", View: ViewX}`,
			map[string][]string{"X": {"R"}}, "row a:c: the view X is shared"},
		{"one row, one parameter", `{ID: "a:b", Const: "AB", Method: "a/b", View: ViewX}`, map[string][]string{"X": {"R"}}, "view X has 1 type parameters and 1 rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := flowtable.ParseRows([]byte("package flows\nvar table = [Count]Info{" + tt.rows + "}"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = flowtable.Build(rows, tt.decls)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMarkdownAndSplice(t *testing.T) {
	src := `package flows
var table = [Count]Info{
	{ID: "a:call", Const: "ACall", Method: "a/call", Entity: EntityTool, View: ViewCall, Doc: "block it"},
	{ID: "a:list", Const: "AList", Method: "a/list", Alias: "a/all", View: ViewList, Result: "ListToolsResult"},
	{ID: "b:list", Const: "BList", Method: "b/*", View: ViewList, Result: "ListPromptsResult", Direction: FromServer},
}`
	rows, err := flowtable.ParseRows([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := flowtable.Build(rows, map[string][]string{"Call": {"In", "Out"}, "List": {"R"}})
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	for _, want := range []string{
		"| `a:call` | `a/call` | the tool | `flows.Call[In, Out]` | block it |\n",
		"| `a:list` | `a/list`, `a/all` | — | `flows.List[*mcp.ListToolsResult]` |  |\n| **sent by the server** | | | | |\n",
		"| `b:list` | `b/*` (every one no other flow names) | — | `flows.List[*mcp.ListPromptsResult]` |  |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks\n%s\ngot:\n%s", want, md)
		}
	}
	doc := "# T\n\n" + flowtable.BeginMarker + "\nold\n" + flowtable.EndMarker + "\n\nafter\n"
	got, ok := flowtable.Splice(doc, md)
	if !ok || got != "# T\n\n"+md+"\nafter\n" {
		t.Errorf("Splice = %q, %v", got, ok)
	}
	if _, ok := flowtable.Splice("# no markers\n", md); ok {
		t.Error("Splice found markers in a document without them")
	}
}

func generate(t *testing.T, src string, decls map[string][]string) string {
	t.Helper()
	rows, err := flowtable.ParseRows([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := flowtable.Build(rows, decls)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tab.Go()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
