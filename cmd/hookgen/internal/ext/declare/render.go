package declare

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
)

// Import paths the generated DeclaredHooks refers to.
const (
	pathDeclared = "github.com/hookflow/hookflow/plugins/declared"
	pathJSON     = "encoding/json"
)

// goName returns the Go constant name of a wire name of package declared,
// e.g. "post_tool_use" → "PostToolUse".
func goName(wire string) string {
	var b strings.Builder
	for _, part := range strings.Split(wire, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// Prepare declares the packages of DeclaredHooks.
func (Extension) Prepare(f *gen.File) {
	f.Import(pathDeclared, "declared")
	f.Import(pathJSON, "json")
}

// Render renders DeclaredHooks: the package's declarations, one composite
// literal each, in source order.
func (Extension) Render(f *gen.File) {
	list := decls(f.Result())
	if len(list) == 0 {
		return // only directives in error, so no file
	}
	j := f.Jen()
	j.Comment(fmt.Sprintf("%s returns the SEP-2282 hook declarations of the //mcp:declare directives", Func))
	j.Comment(fmt.Sprintf("of package %s, for the declared plugin:", f.Package.Name))
	j.Comment("")
	j.Comment(fmt.Sprintf("\tsrv.Use(declared.New(declared.Config{Declarations: %s()}))", Func))
	items := make([]jen.Code, len(list))
	for i, dd := range list {
		d := dd.Declaration
		fields := []jen.Code{gen.Field("Event", f.Qual(pathDeclared, goName(d.Event.String())))}
		if m := d.Matcher; m != nil {
			fields = append(fields, gen.Field("Matcher", jen.Op("&").Add(f.Qual(pathDeclared, "Matcher")).Values(
				gen.Optional("ToolName", m.ToolName, "InputContains", m.InputContains, "ToolServer", m.ToolServer)...)))
		}
		fields = append(fields, gen.Optional("Context", d.Context, "ContextTool", d.ContextTool)...)
		if len(d.ContextToolArgs) > 0 {
			fields = append(fields, gen.Field("ContextToolArgs", f.Qual(pathJSON, "RawMessage").Call(stringLit(string(d.ContextToolArgs)))))
		}
		fields = append(fields, gen.Field("Priority", f.Qual(pathDeclared, goName(d.Priority.String()))))
		items[i] = jen.Custom(gen.Multi("{", "}"), fields...)
	}
	j.Func().Id(Func).Params().Index().Add(f.Qual(pathDeclared, "Declaration")).Block(
		jen.Return(jen.Index().Add(f.Qual(pathDeclared, "Declaration")).Custom(gen.Multi("{", "}"), items...)),
	)
}

// stringLit renders s as a raw string literal when it can be one (JSON
// reads better without escapes), else as an interpreted one.
func stringLit(s string) jen.Code {
	if strings.ContainsAny(s, "`\r") || !utf8.ValidString(s) {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}
