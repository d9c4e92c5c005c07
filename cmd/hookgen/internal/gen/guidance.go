package gen

// The guidance hooks of //mcp:guidance directives: the embedded content
// files and HookflowGuidance.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/plugins/guidance"
)

const pathEmbed = "embed"

// guidanceFilesVar is the base name of the embed.FS that holds the content
// files; fresh makes it unique in the package.
const guidanceFilesVar = "hookflowGuidanceFiles"

// guidance renders the embedded content files and HookflowGuidance.
func (g *renderer) guidance() {
	p := g.p
	taken := map[string]bool{}
	for _, n := range p.Types.Scope().Names() {
		taken[n] = true
	}
	files := fresh(guidanceFilesVar, taken)
	patterns := make([]string, 0)
	for _, path := range p.EmbedPaths() {
		// Quoted when a name has a space, as //go:embed allows.
		if strings.ContainsAny(path, " \t\"`") {
			path = strconv.Quote(path)
		}
		patterns = append(patterns, path)
	}
	g.f.Comment(fmt.Sprintf("%s holds the content files of the //mcp:guidance directives of package %s.", files, p.Name))
	g.f.Comment("//go:embed " + strings.Join(patterns, " "))
	g.f.Var().Id(files).Qual(pathEmbed, "FS")
	g.f.Line()

	var hooks []jen.Code
	for _, e := range p.Entities {
		for _, d := range e.Guidance {
			hooks = append(hooks, g.guidanceHook(e, d, files))
		}
	}
	pg := analyze.PathGuidance
	g.f.Comment(fmt.Sprintf("%s returns the guidance hooks of the //mcp:guidance directives of package", analyze.GuidanceFunc))
	g.f.Comment(fmt.Sprintf("%s, with their content files embedded: add them to guidance.Config.Hooks.", p.Name))
	g.f.Func().Id(analyze.GuidanceFunc).Params().Index().Qual(pg, "Hook").Block(
		jen.Return(jen.Index().Qual(pg, "Hook").Custom(multi("{", "}"), hooks...)),
	)
}

// guidanceHook renders one guidance.Hook literal.
func (g *renderer) guidanceHook(e *analyze.Entity, d *analyze.GuidanceDecl, files string) jen.Code {
	pg := analyze.PathGuidance
	items := []jen.Code{
		field("Tag", jen.Lit(d.Tag)),
		field("Type", jen.Qual(pg, typeConst(d.Type))),
		field("Lifecycle", jen.Qual(pg, lifecycleConst(d.Lifecycle))),
	}
	items = append(items, optional("Name", d.Name, "Description", d.Description)...)
	items = append(items, field("Level", jen.Qual(pg, levelConst(d.Level))))
	if d.Priority != 0 {
		items = append(items, field("Priority", jen.Lit(d.Priority)))
	}
	var cond []jen.Code
	if len(d.Storage) > 0 {
		s := make([]jen.Code, len(d.Storage))
		for i, x := range d.Storage {
			s[i] = jen.Lit(x)
		}
		cond = append(cond, field("Storage", jen.Index().String().Values(s...)))
	}
	if len(d.Features) > 0 {
		fs := make([]jen.Code, len(d.Features))
		for i, f := range d.Features {
			fs[i] = jen.Qual(pg, featureConst(f))
		}
		cond = append(cond, field("Features", jen.Index().Qual(pg, "Feature").Values(fs...)))
	}
	if cond != nil {
		items = append(items, field("Conditions", jen.Qual(pg, "Conditions").Values(cond...)))
	}
	target := map[analyze.Kind]string{analyze.KindTool: "Tool", analyze.KindPrompt: "Prompt", analyze.KindResource: "Resource", analyze.KindTemplate: "Resource"}[e.Kind]
	items = append(items,
		field("On", jen.Qual(pg, target).Call(jen.Lit(e.Name()))),
		field("FS", jen.Id(files)),
		field("File", jen.Lit(d.Path)),
	)
	return jen.Custom(multi("{", "}"), items...)
}

// The names of package guidance's constants.

func typeConst(t guidance.Type) string {
	return "Type" + strings.ToUpper(t.String()[:1]) + t.String()[1:]
}

func lifecycleConst(l guidance.Lifecycle) string {
	return strings.ToUpper(l.String()[:1]) + l.String()[1:]
}

func levelConst(l guidance.Level) string {
	var b strings.Builder
	for _, w := range strings.Fields(l.String()) {
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

func featureConst(f guidance.Feature) string {
	return strings.ToUpper(f.String()[:1]) + f.String()[1:]
}
