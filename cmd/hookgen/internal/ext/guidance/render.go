package guidance

// The guidance hooks of //mcp:guidance directives: the embedded content
// files and HookflowGuidance.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
	"github.com/hookflow/hookflow/internal/guidancekinds"
)

const pathEmbed = "embed"

// guidanceFilesVar is the base name of the embed.FS that holds the content
// files; fresh makes it unique in the package.
const guidanceFilesVar = "hookflowGuidanceFiles"

// Prepare declares the packages of the generated code.
func (Extension) Prepare(f *gen.File) {
	f.Import(pathEmbed, "embed")
	f.Import(Path, "guidance")
}

// Render renders the embedded content files and HookflowGuidance.
func (Extension) Render(f *gen.File) {
	r, _ := f.Result().(*result)
	if r == nil || len(r.decls) == 0 {
		return // only directives in error, so no file
	}
	p := f.Package
	taken := map[string]bool{}
	for _, n := range p.Types.Scope().Names() {
		taken[n] = true
	}
	files := gen.Fresh(guidanceFilesVar, taken)
	patterns := make([]string, 0)
	for _, path := range embedPaths(r.decls) {
		// Quoted when a name has a space, as //go:embed allows.
		if strings.ContainsAny(path, " \t\"`") {
			path = strconv.Quote(path)
		}
		patterns = append(patterns, path)
	}
	j := f.Jen()
	j.Comment(fmt.Sprintf("%s holds the content files of the //mcp:guidance directives of package %s.", files, p.Name))
	j.Comment("//go:embed " + strings.Join(patterns, " "))
	j.Var().Id(files).Qual(pathEmbed, "FS")
	j.Line()

	var hooks []jen.Code
	for _, e := range p.Entities {
		for _, d := range r.decls {
			if d.Entity == e {
				hooks = append(hooks, hook(e, d, files))
			}
		}
	}
	pg := Path
	j.Comment(fmt.Sprintf("%s returns the guidance hooks of the //mcp:guidance directives of package", Func))
	j.Comment(fmt.Sprintf("%s, with their content files embedded: add them to guidance.Config.Hooks.", p.Name))
	j.Func().Id(Func).Params().Index().Qual(pg, "Hook").Block(
		jen.Return(jen.Index().Qual(pg, "Hook").Custom(gen.Multi("{", "}"), hooks...)),
	)
}

// hook renders one guidance.Hook literal.
func hook(e *analyze.Entity, d *Decl, files string) jen.Code {
	pg := Path
	items := []jen.Code{
		gen.Field("Tag", jen.Lit(d.Tag)),
		gen.Field("Type", jen.Qual(pg, typeConst(d.Type))),
		gen.Field("Lifecycle", jen.Qual(pg, lifecycleConst(d.Lifecycle))),
	}
	items = append(items, gen.Optional("Name", d.Name, "Description", d.Description)...)
	items = append(items, gen.Field("Level", jen.Qual(pg, levelConst(d.Level))))
	if d.Priority != 0 {
		items = append(items, gen.Field("Priority", jen.Lit(d.Priority)))
	}
	var cond []jen.Code
	if len(d.Storage) > 0 {
		s := make([]jen.Code, len(d.Storage))
		for i, x := range d.Storage {
			s[i] = jen.Lit(x)
		}
		cond = append(cond, gen.Field("Storage", jen.Index().String().Values(s...)))
	}
	if len(d.Features) > 0 {
		fs := make([]jen.Code, len(d.Features))
		for i, f := range d.Features {
			fs[i] = jen.Qual(pg, featureConst(f))
		}
		cond = append(cond, gen.Field("Features", jen.Index().Qual(pg, "Feature").Values(fs...)))
	}
	if cond != nil {
		items = append(items, gen.Field("Conditions", jen.Qual(pg, "Conditions").Values(cond...)))
	}
	target := map[analyze.Kind]string{analyze.KindTool: "Tool", analyze.KindPrompt: "Prompt", analyze.KindResource: "Resource", analyze.KindTemplate: "Resource"}[e.Kind]
	items = append(items,
		gen.Field("On", jen.Qual(pg, target).Call(jen.Lit(e.Name()))),
		gen.Field("FS", jen.Id(files)),
		gen.Field("File", jen.Lit(d.Path)),
	)
	return jen.Custom(gen.Multi("{", "}"), items...)
}

// The names of package guidance's constants.

func typeConst(t guidancekinds.Type) string {
	return "Type" + strings.ToUpper(t.String()[:1]) + t.String()[1:]
}

func lifecycleConst(l guidancekinds.Lifecycle) string {
	return strings.ToUpper(l.String()[:1]) + l.String()[1:]
}

func levelConst(l guidancekinds.Level) string {
	var b strings.Builder
	for _, w := range strings.Fields(l.String()) {
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

func featureConst(f guidancekinds.Feature) string {
	return strings.ToUpper(f.String()[:1]) + f.String()[1:]
}
