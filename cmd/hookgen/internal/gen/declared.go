package gen

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
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

// declaredHooks renders DeclaredHooks: the package's declarations, one
// composite literal each, in source order.
func (g *renderer) declaredHooks() {
	g.f.Comment(fmt.Sprintf("%s returns the SEP-2282 hook declarations of the //mcp:declare directives", analyze.DeclaredFunc))
	g.f.Comment(fmt.Sprintf("of package %s, for the declared plugin:", g.p.Name))
	g.f.Comment("")
	g.f.Comment(fmt.Sprintf("\tsrv.Use(declared.New(declared.Config{Declarations: %s()}))", analyze.DeclaredFunc))
	items := make([]jen.Code, len(g.p.Declared))
	for i, dd := range g.p.Declared {
		d := dd.Declaration
		fields := []jen.Code{field("Event", g.qual(pathDeclared, goName(d.Event.String())))}
		if m := d.Matcher; m != nil {
			fields = append(fields, field("Matcher", jen.Op("&").Add(g.qual(pathDeclared, "Matcher")).Values(
				optional("ToolName", m.ToolName, "InputContains", m.InputContains, "ToolServer", m.ToolServer)...)))
		}
		fields = append(fields, optional("Context", d.Context, "ContextTool", d.ContextTool)...)
		if len(d.ContextToolArgs) > 0 {
			fields = append(fields, field("ContextToolArgs", g.qual(pathJSON, "RawMessage").Call(stringLit(string(d.ContextToolArgs)))))
		}
		fields = append(fields, field("Priority", g.qual(pathDeclared, goName(d.Priority.String()))))
		items[i] = jen.Custom(multi("{", "}"), fields...)
	}
	g.f.Func().Id(analyze.DeclaredFunc).Params().Index().Add(g.qual(pathDeclared, "Declaration")).Block(
		jen.Return(jen.Index().Add(g.qual(pathDeclared, "Declaration")).Custom(multi("{", "}"), items...)),
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
