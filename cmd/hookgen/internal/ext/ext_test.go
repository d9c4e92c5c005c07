package ext_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/explain"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// trace is a fake extension: //hook:trace label=<word> on a function
// lists the function in a generated TraceTable.
type trace struct{ ext.Base }

type traceValue struct{ Label string }

func (v traceValue) Canonical() string {
	var c directive.Canon
	c.Head(directive.NamespaceHook, "trace")
	c.Str("label", v.Label, true)
	return c.String()
}

func (trace) Name() string { return "trace" }

func (trace) Directives() []directive.Def {
	return []directive.Def{{
		Namespace: directive.NamespaceHook, Name: "trace", Targets: directive.TargetFunc,
		Help:  "lists the function in TraceTable.",
		Keys:  []directive.Key{{Name: "label", Kind: directive.KindWord, Required: true, Help: "the function's label"}},
		Build: func(f *directive.Fields) directive.Value { return traceValue{Label: f.Str("label")} },
	}}
}

func (trace) Owns(v directive.Value) bool { _, ok := v.(traceValue); return ok }

type traced struct{ label, fn string }

func (trace) Func(pass *analyze.Pass, decl *ast.FuncDecl, own, others []*directive.Decoded) []*directive.Decoded {
	if decl.Name.Name == "Bad" {
		pass.Errorf(pass.Pos(decl.Name.Pos()), "trace: %s is not traceable", decl.Name.Name)
	}
	list, _ := pass.Result().([]traced)
	pass.SetResult(append(list, traced{own[0].Value.(traceValue).Label, decl.Name.Name}))
	return others
}

func (trace) Prepare(f *gen.File) {
	f.Import("example.com/trace", "trace")
	list, _ := f.Result().([]traced)
	for _, t := range list {
		f.Reserve(t.fn)
	}
}

func (trace) Render(f *gen.File) {
	list, _ := f.Result().([]traced)
	var items []jen.Code
	for _, t := range list {
		items = append(items, f.Qual("example.com/trace", "Entry").Values(jen.Lit(t.label), jen.Id(t.fn)))
		f.Guard(t.fn, jen.Id(t.fn))
	}
	f.Jen().Var().Id("TraceTable").Op("=").Index().Add(f.Qual("example.com/trace", "Entry")).Values(items...)
}

func (trace) Positions(flow flows.ID) []explain.Position {
	return []explain.Position{{Stage: stages.BeforeExecute, Priority: 7, ID: "(traced " + string(flow) + ")"}}
}

// load type-checks src as package p.
func load(t *testing.T, src string) analyze.Input {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("example.com/p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Input{Fset: fset, Files: []*ast.File{f}, Types: pkg, Info: info}
}

// An extension plugs its own directive into every step: the registry
// decodes it, its analysis records it, its code and build-guard entry are
// in the generated file, and -explain shows its position. Without the
// extension the same source is an error.
func TestFakeExtensionPlugsIn(t *testing.T) {
	const src = `package p

// Handle handles.
//
//hook:trace label=first
func Handle() {}
`
	exts := []ext.Extension{trace{}}
	reg, err := ext.Registry(exts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reg.List(), "//hook:trace label=<word>\n    lists the function in TraceTable.") {
		t.Errorf("-list does not show the extension's directive:\n%s", reg.List())
	}
	p, diags := analyze.Analyze(load(t, src), reg, ext.Analyzers(exts)...)
	if p == nil || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if p.Empty() {
		t.Fatal("a package with only the extension's directive is empty")
	}
	out, err := gen.Render(p, ext.Renderers(exts)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"example.com/trace"`,
		"var TraceTable = []trace.Entry{trace.Entry{\"first\", Handle}}",
		"var _ = [...]any{\n\tHandle,\n}",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("generated file lacks %q:\n%s", want, out)
		}
	}
	var b strings.Builder
	explain.Package(&b, p, flows.SessionPing, true, ext.Positioners(exts)...)
	if !strings.Contains(b.String(), "7  (traced session:ping)") {
		t.Errorf("-explain -v lacks the extension's position:\n%s", b.String())
	}

	core, err := ext.Registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, diags := analyze.Analyze(load(t, src), core); p != nil || len(diags) == 0 {
		t.Errorf("without the extension //hook:trace was accepted: %v", diags)
	}
}

// The extension's errors are the package's: the model is nil.
func TestFakeExtensionReportsErrors(t *testing.T) {
	exts := []ext.Extension{trace{}}
	reg, err := ext.Registry(exts)
	if err != nil {
		t.Fatal(err)
	}
	p, diags := analyze.Analyze(load(t, "package p\n\n//hook:trace label=x\nfunc Bad() {}\n"), reg, ext.Analyzers(exts)...)
	if p != nil || len(diags) != 1 || !strings.Contains(diags[0].String(), "p.go:4:6: trace: Bad is not traceable") {
		t.Errorf("got model %v, diagnostics %v", p, diags)
	}
}

// An extension adds directives; it cannot replace or shadow one.
func TestRegistryRejectsClashes(t *testing.T) {
	build := func(*directive.Fields) directive.Value { return traceValue{} }
	tests := []struct {
		name string
		def  directive.Def
		want string
	}{
		{"core directive", directive.Def{Namespace: directive.NamespaceMCP, Name: "tool", Targets: directive.TargetType, Build: build}, "//mcp:tool is defined twice"},
		{"stage name", directive.Def{Namespace: directive.NamespaceHook, Name: "beforeExecute", Targets: directive.TargetFunc, Build: build}, "its name is a stage's"},
		{"second stage directive", directive.Def{Namespace: directive.NamespaceHook, Name: "<x>", Stage: true, Targets: directive.TargetFunc, Build: build}, "only one definition"},
		{"no build", directive.Def{Namespace: directive.NamespaceHook, Name: "x", Targets: directive.TargetFunc}, "has no Build"},
		{"namespace", directive.Def{Namespace: "go", Name: "x", Targets: directive.TargetFunc, Build: build}, "neither mcp nor hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := directive.New(tt.def)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := directive.New(trace{}.Directives()[0], trace{}.Directives()[0]); err == nil {
		t.Error("one extension directive twice was accepted")
	}
}
