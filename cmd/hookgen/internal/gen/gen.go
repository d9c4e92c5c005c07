package gen

import (
	"bytes"
	"fmt"
	"go/types"
	"slices"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/imports"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/load"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// BuildLine is the build constraint of generated files: hookgen loads with
// the hookgen tag, so it never sees (a stale) output.
const BuildLine = "//go:build !hookgen"

const pathErrors = "errors"

// FlowConst returns the name of the flows package constant for id, from
// the flow table.
func FlowConst(id flows.ID) string { return id.Info().Const }

// StageConst returns the name of the stages package constant for s.
func StageConst(s stages.Stage) string {
	n := s.String()
	return strings.ToUpper(n[:1]) + n[1:]
}

type renderer struct {
	p *analyze.Package
	f *jen.File
	// Parameter names, chosen not to shadow what the bodies refer to.
	r, c string
	// paths are the packages the file may import, with their names;
	// local are the package-level identifiers the bodies refer to.
	paths map[string]string
	local map[string]bool
	// extGuard are the extensions' build-guard entries (File.Guard).
	extGuard []guardEntry
}

// Render returns the formatted hookgen_gen.go for p. p must not be empty.
// exts render the results of hookgen's extensions (package ext), in order,
// after the core's declarations.
func Render(p *analyze.Package, exts ...Renderer) ([]byte, error) {
	g := &renderer{p: p, f: jen.NewFilePathName(p.Path, p.Name), paths: corePaths()}
	g.f.HeaderComment(Header + "\n\n" + BuildLine)
	g.local = g.localNames()
	files := make([]*File, len(exts))
	for i, x := range exts {
		files[i] = &File{g: g, name: x.Name(), Package: p}
		x.Prepare(files[i])
	}
	g.r = fresh("r", g.local)
	g.c = fresh("c", g.local)
	g.imports(g.local)

	g.f.Comment("hookgen: this file needs the framework of hookflow " + RuntimeVersion + " or later: if this")
	g.f.Comment("does not compile, upgrade github.com/hookflow/hookflow, or regenerate with the")
	g.f.Comment(`hookgen of the hookflow you use ("go generate").`)
	g.f.Const().Id("_").Op("=").Qual(analyze.PathFramework, guardConst)
	sep := func() { g.f.Line() }
	if len(p.Entities) > 0 || len(p.Externals) > 0 {
		sep()
		g.register()
	}
	renderExts := func(at Place) {
		for i, x := range exts {
			if x.Place() == at && files[i].Result() != nil {
				sep()
				x.Render(files[i])
			}
		}
	}
	renderExts(AfterRegister)
	for _, pl := range p.Plugins {
		sep()
		g.plugin(pl)
	}
	renderExts(AtEnd)
	if guard := g.guard(); guard != nil {
		sep()
		g.f.Comment(`hookgen: if this does not compile, a type or method that hookgen wired up was`)
		g.f.Comment(`renamed or deleted, or its signature changed: re-run "go generate".`)
		g.f.Var().Id("_").Op("=").Index(jen.Op("...")).Any().Custom(multi("{", "}"), guard...)
	}
	// The file is formatted once, by the imports package, which also
	// groups the standard library's imports apart as goimports does.
	// FormatOnly: every import is known, none is looked up.
	g.f.NoFormat = true
	var buf bytes.Buffer
	if err := g.f.Render(&buf); err != nil {
		return nil, err
	}
	src, err := imports.Process(load.GenFile, buf.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, fmt.Errorf("formatting the generated code: %w\n%s", err, buf.Bytes())
	}
	return src, nil
}

// corePaths are the packages the core's code may import, with their names.
func corePaths() map[string]string {
	return map[string]string{
		pathErrors:        "errors",
		analyze.PathFlows: "flows", analyze.PathFramework: "framework",
		analyze.PathScope: "scope", analyze.PathStages: "stages", analyze.PathMCP: "mcp",
		analyze.PathPriority: "priority",
	}
}

func multi(open, close string) jen.Options {
	return jen.Options{Open: open, Close: close, Separator: ",", Multi: true}
}

// Fresh returns base, or base with a number appended, that is not in used.
func Fresh(base string, used map[string]bool) string { return fresh(base, used) }

// fresh returns base, or base with a number appended, that is not in used.
func fresh(base string, used map[string]bool) string {
	name := base
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}

// localNames returns the package-level identifiers the generated bodies
// refer to.
func (g *renderer) localNames() map[string]bool {
	used := map[string]bool{}
	for _, e := range g.p.Entities {
		used[e.TypeName] = true
		if e.Ctor != "" {
			used[e.Ctor] = true
		}
		if e.Tool.InputSchema != "" {
			used[e.Tool.InputSchema] = true
		}
		if e.Tool.OutputSchema != "" {
			used[e.Tool.OutputSchema] = true
		}
		for _, t := range []types.Type{e.In, e.Out} {
			walkType(t, func(obj types.Object) {
				if obj.Pkg() == g.p.Types {
					used[obj.Name()] = true
				}
			})
		}
	}
	for _, h := range g.p.Externals {
		used[h.Func] = true
	}
	for _, pl := range g.p.Plugins {
		used[pl.TypeName] = true
	}
	return used
}

// imports chooses the name of every package the file may import: the
// package's own name unless a package-level identifier, a parameter or
// another import has it, else an alias.
func (g *renderer) imports(local map[string]bool) {
	paths := g.paths
	for _, e := range g.p.Entities {
		for _, t := range []types.Type{e.In, e.Out} {
			walkType(t, func(obj types.Object) {
				if pkg := obj.Pkg(); pkg != nil && pkg != g.p.Types {
					paths[pkg.Path()] = pkg.Name()
				}
			})
		}
	}
	taken := map[string]bool{g.r: true, g.c: true, "p": true, "pc": true, "_": true, ".": true,
		"any": true, "error": true, "new": true, "true": true, "string": true}
	for _, n := range g.p.Types.Scope().Names() {
		taken[n] = true
	}
	for n := range local {
		taken[n] = true
	}
	sorted := make([]string, 0, len(paths))
	for path := range paths {
		sorted = append(sorted, path)
	}
	slices.Sort(sorted)
	for _, path := range sorted {
		name := paths[path]
		if !taken[name] && !jen.IsReservedWord(name) {
			g.f.ImportName(path, name)
			taken[name] = true
			continue
		}
		alias := fresh("hf"+name, taken)
		g.f.ImportAlias(path, alias)
		taken[alias] = true
	}
}

func (g *renderer) qual(path, name string) *jen.Statement { return jen.Qual(path, name) }

// field renders "Key: value".
func field(key string, v jen.Code) jen.Code { return jen.Id(key).Op(":").Add(v) }

// register renders RegisterHookflow.
func (g *renderer) register() {
	p := g.p
	g.f.Comment(fmt.Sprintf("%s adds the package's hookflow entities and external hooks to %s", analyze.RegisterFunc, g.r))
	g.f.Comment("(a *framework.Server or *framework.App). Generated from the //mcp: and //hook:")
	g.f.Comment(fmt.Sprintf("directives of package %s.", p.Name))
	var calls []jen.Code
	if len(p.Externals) > 0 {
		hooks := make([]jen.Code, len(p.Externals))
		for i, h := range p.Externals {
			hooks[i] = g.scopeHook(h, jen.Id(h.Func))
		}
		calls = append(calls, jen.Id(g.r).Dot("Hook").Custom(multi("(", ")"), hooks...))
	}
	for _, e := range p.Entities {
		calls = append(calls, g.entity(e))
	}
	g.f.Func().Id(analyze.RegisterFunc).Params(jen.Id(g.r).Add(g.qual(analyze.PathFramework, "Registrar"))).Error().Block(
		jen.Return(g.qual(pathErrors, "Join").Custom(multi("(", ")"), calls...)),
	)
}

// scopeHook renders an external hook's registration; fn is the function
// (a top-level function or a plugin's method value). A hook taking
// *flows.Context is a flows.Hook literal; one taking a typed view is
// flows.On(stage, fn), which derives the flow from the view, with its name
// and priority set by Named and At.
func (g *renderer) scopeHook(h *analyze.HookDecl, fn *jen.Statement) jen.Code {
	if h.View != flows.ViewContext {
		c := g.qual(analyze.PathFlows, "On").Call(g.qual(analyze.PathStages, StageConst(h.Stage)), fn).Dot("Named").Call(jen.Lit(h.Name))
		if h.Priority != 0 {
			c = c.Dot("At").Call(g.priority(h.Priority))
		}
		if h.Timeout != 0 {
			c = c.Dot("Within").Call(duration(h.Timeout))
		}
		if h.OnFailure != flows.FailClosed {
			c = c.Dot("Failing").Call(g.qual(analyze.PathFlows, "FailOpen"))
		}
		return c
	}
	items := []jen.Code{
		field("Flow", g.qual(analyze.PathFlows, FlowConst(h.Flow))),
		field("Stage", g.qual(analyze.PathStages, StageConst(h.Stage))),
	}
	if h.Priority != 0 {
		items = append(items, field("Priority", g.priority(h.Priority)))
	}
	items = append(items, field("Name", jen.Lit(h.Name)), field("Fn", fn))
	items = append(items, g.failureFields(h)...)
	return g.qual(analyze.PathFlows, "Hook").Values(items...)
}

// failureFields renders a hook's Timeout and OnFailure fields, when set.
func (g *renderer) failureFields(h *analyze.HookDecl) []jen.Code {
	var items []jen.Code
	if h.Timeout != 0 {
		items = append(items, field("Timeout", duration(h.Timeout)))
	}
	if h.OnFailure != flows.FailClosed {
		items = append(items, field("OnFailure", g.qual(analyze.PathFlows, "FailOpen")))
	}
	return items
}

// duration renders d as a Go expression of package time, e.g.
// 250 * time.Millisecond, or a time.Duration conversion of its
// nanoseconds when no unit divides it.
func duration(d time.Duration) *jen.Statement {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.d == 0 {
			if d == u.d {
				return jen.Qual("time", u.name)
			}
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// priority renders p as the directive wrote it: priority.Auth + 10 for a
// named position, the number otherwise.
func (g *renderer) priority(p int) *jen.Statement {
	pos, off, ok := priority.Nearest(p)
	if !ok {
		return jen.Lit(p)
	}
	c := g.qual(analyze.PathPriority, pos.Const)
	switch {
	case off > 0:
		c = c.Op("+").Lit(off)
	case off < 0:
		c = c.Op("-").Lit(-off)
	}
	return c
}

// entityType renders the entity's type parameter: T or *T.
func entityType(e *analyze.Entity) *jen.Statement {
	if e.Pointer {
		return jen.Op("*").Id(e.TypeName)
	}
	return jen.Id(e.TypeName)
}

// methodExpr renders (*T).M or T.M.
func methodExpr(e *analyze.Entity, m string) *jen.Statement {
	if e.Pointer {
		return jen.Parens(jen.Op("*").Id(e.TypeName)).Dot(m)
	}
	return jen.Id(e.TypeName).Dot(m)
}

// viewType renders the typed context of an entity's embedded hooks.
func (g *renderer) viewType(e *analyze.Entity) *jen.Statement {
	if e.Kind == analyze.KindTool {
		return g.qual(analyze.PathFlows, "ToolCall").Types(g.typ(e.In), g.typ(e.Out))
	}
	return g.qual(analyze.PathFlows, analyze.ViewTypeName(e.Kind.View()))
}

// entity renders the framework.Add* call of one entity.
func (g *renderer) entity(e *analyze.Entity) jen.Code {
	var def *jen.Statement
	var items []jen.Code
	fw := analyze.PathFramework
	switch e.Kind {
	case analyze.KindTool:
		t := e.Tool
		def = g.qual(fw, "Tool").Types(entityType(e), g.typ(e.In), g.typ(e.Out))
		desc := []jen.Code{field("Name", jen.Lit(t.Name))}
		if t.Title != "" {
			desc = append(desc, field("Title", jen.Lit(t.Title)))
		}
		if t.Description != "" {
			desc = append(desc, field("Description", jen.Lit(t.Description)))
		}
		if t.InputSchema != "" {
			desc = append(desc, field("InputSchema", jen.Id(t.InputSchema)))
		}
		if t.OutputSchema != "" {
			desc = append(desc, field("OutputSchema", jen.Id(t.OutputSchema)))
		}
		var ann []jen.Code
		if t.ReadOnly {
			ann = append(ann, field("ReadOnlyHint", jen.True()))
		}
		if t.Destructive {
			ann = append(ann, field("DestructiveHint", jen.New(jen.True())))
		}
		if t.Idempotent {
			ann = append(ann, field("IdempotentHint", jen.True()))
		}
		if t.OpenWorld {
			ann = append(ann, field("OpenWorldHint", jen.New(jen.True())))
		}
		if len(ann) > 0 {
			desc = append(desc, field("Annotations", jen.Op("&").Add(g.qual(analyze.PathMCP, "ToolAnnotations")).Values(ann...)))
		}
		items = append(items, field("Tool", jen.Op("&").Add(g.qual(analyze.PathMCP, "Tool")).Custom(multi("{", "}"), desc...)))
	case analyze.KindResource:
		r := e.Resource
		def = g.qual(fw, "Resource").Types(entityType(e))
		desc := []jen.Code{field("URI", jen.Lit(r.URI)), field("Name", jen.Lit(r.Name))}
		desc = append(desc, optional("Title", r.Title, "Description", r.Description, "MIMEType", r.MIMEType)...)
		items = append(items, field("Resource", jen.Op("&").Add(g.qual(analyze.PathMCP, "Resource")).Custom(multi("{", "}"), desc...)))
	case analyze.KindTemplate:
		r := e.Template
		def = g.qual(fw, "Resource").Types(entityType(e))
		desc := []jen.Code{field("URITemplate", jen.Lit(r.URITemplate)), field("Name", jen.Lit(r.Name))}
		desc = append(desc, optional("Title", r.Title, "Description", r.Description, "MIMEType", r.MIMEType)...)
		items = append(items, field("Template", jen.Op("&").Add(g.qual(analyze.PathMCP, "ResourceTemplate")).Custom(multi("{", "}"), desc...)))
	case analyze.KindPrompt:
		pr := e.Prompt
		def = g.qual(fw, "Prompt").Types(entityType(e))
		desc := []jen.Code{field("Name", jen.Lit(pr.Name))}
		desc = append(desc, optional("Title", pr.Title, "Description", pr.Description)...)
		if len(pr.Args) > 0 {
			args := make([]jen.Code, len(pr.Args))
			long := false
			for i, a := range pr.Args {
				long = long || a.Title != "" || a.Description != ""
				arg := []jen.Code{field("Name", jen.Lit(a.Name))}
				arg = append(arg, optional("Title", a.Title, "Description", a.Description)...)
				if a.Required {
					arg = append(arg, field("Required", jen.True()))
				}
				args[i] = jen.Values(arg...)
			}
			list := jen.Index().Op("*").Add(g.qual(analyze.PathMCP, "PromptArgument"))
			if long {
				list.Custom(multi("{", "}"), args...) // one argument per line
			} else {
				list.Values(args...)
			}
			desc = append(desc, field("Arguments", list))
		}
		items = append(items, field("Prompt", jen.Op("&").Add(g.qual(analyze.PathMCP, "Prompt")).Custom(multi("{", "}"), desc...)))
	}
	if e.Ctor != "" {
		items = append(items, field("New", jen.Id(e.Ctor)))
	}
	items = append(items, field(e.Kind.Method(), methodExpr(e, e.Kind.Method())))
	if e.Complete {
		items = append(items, field("Complete", methodExpr(e, "Complete")))
	}
	if e.Kind == analyze.KindTool && len(e.Tool.Scopes) > 0 {
		scopes := make([]jen.Code, len(e.Tool.Scopes))
		for i, s := range e.Tool.Scopes {
			scopes[i] = jen.Lit(s)
		}
		items = append(items, field("Scopes", jen.Index().String().Values(scopes...)))
	}
	if len(e.Hooks) > 0 {
		hooks := make([]jen.Code, len(e.Hooks))
		for i, h := range e.Hooks {
			hi := []jen.Code{field("Stage", g.qual(analyze.PathStages, StageConst(h.Stage)))}
			if h.Priority != 0 {
				hi = append(hi, field("Priority", g.priority(h.Priority)))
			}
			hi = append(hi, field("Name", jen.Lit(h.Name)), field("Fn", methodExpr(e, h.Func)))
			hi = append(hi, g.failureFields(h)...)
			hooks[i] = jen.Values(hi...)
		}
		items = append(items, field("Hooks",
			jen.Index().Add(g.qual(fw, "EntityHook")).Types(entityType(e), g.viewType(e)).Custom(multi("{", "}"), hooks...)))
	}
	add := map[analyze.Kind]string{analyze.KindTool: "AddTool", analyze.KindResource: "AddResource", analyze.KindTemplate: "AddResource", analyze.KindPrompt: "AddPrompt"}[e.Kind]
	return g.qual(fw, add).Call(jen.Id(g.r), def.Custom(multi("{", "}"), items...))
}

// optional renders the key/value pairs whose value is not empty.
func optional(kv ...string) []jen.Code {
	var out []jen.Code
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			out = append(out, field(kv[i], jen.Lit(kv[i+1])))
		}
	}
	return out
}

// plugin renders <Type>Plugin.
func (g *renderer) plugin(pl *analyze.Plugin) {
	fw := analyze.PathFramework
	g.f.Comment(fmt.Sprintf("%s returns p as a framework.Plugin named %q whose hooks are", pl.FuncName, pl.Name))
	g.f.Comment("p's //hook: methods. Attach it with srv.Use or app.Use.")
	hooks := make([]jen.Code, len(pl.Hooks))
	for i, h := range pl.Hooks {
		hooks[i] = g.scopeHook(h, jen.Id("p").Dot(h.Func))
	}
	g.f.Func().Id(pl.FuncName).Params(jen.Id("p").Op("*").Id(pl.TypeName)).Add(g.qual(fw, "Plugin")).Block(
		jen.Return(g.qual(fw, "NewPlugin").Call(jen.Lit(pl.Name),
			jen.Func().Params(jen.Id("pc").Op("*").Add(g.qual(fw, "PluginContext"))).Error().Block(
				jen.Return(jen.Id("pc").Dot("Hook").Custom(multi("(", ")"), hooks...)),
			))),
	)
}

// guard lists every method and function the generated code wires up, each
// once (a method with hooks at several stages appears once).
func (g *renderer) guard() []jen.Code {
	var out []jen.Code
	seen := map[string]bool{}
	add := func(key string, c jen.Code) {
		if !seen[key] {
			seen[key] = true
			out = append(out, c)
		}
	}
	for _, e := range g.p.Entities {
		add(e.TypeName+"."+e.Kind.Method(), methodExpr(e, e.Kind.Method()))
		if e.Complete {
			add(e.TypeName+".Complete", methodExpr(e, "Complete"))
		}
		for _, h := range e.Hooks {
			add(e.TypeName+"."+h.Func, methodExpr(e, h.Func))
		}
	}
	for _, h := range g.p.Externals {
		add(h.Func, jen.Id(h.Func))
	}
	for _, pl := range g.p.Plugins {
		for _, h := range pl.Hooks {
			add(pl.TypeName+"."+h.Func, jen.Parens(jen.Op("*").Id(pl.TypeName)).Dot(h.Func))
		}
	}
	for _, e := range g.extGuard {
		add(e.key, e.code)
	}
	return out
}
