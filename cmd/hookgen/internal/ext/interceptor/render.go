package interceptor

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
)

// pathWire is the import path of the SEP-2624 messages (for priority
// hints).
const pathWire = "github.com/hookflow/hookflow/plugins/intercept/wire"

// Prepare declares the packages of the interceptors' code and reserves the
// functions it refers to.
func (Extension) Prepare(f *gen.File) {
	f.Import(PathHost, "host")
	f.Import(pathWire, "wire")
	decls, _ := f.Result().([]*Decl)
	for _, ic := range decls {
		f.Reserve(ic.Func)
	}
}

// Render renders HookflowInterceptors: the package's //hook:validator and
// //hook:mutator functions as host.Interceptor values, in source order.
func (Extension) Render(f *gen.File) {
	decls, _ := f.Result().([]*Decl)
	host := PathHost
	j := f.Jen()
	j.Comment(fmt.Sprintf("%s returns the package's interceptors, for a host to serve", Func))
	j.Comment("(host.Handler, or host.New attached to a server). Generated from the validator")
	j.Comment(fmt.Sprintf("and mutator directives of package %s.", f.Package.Name))
	items := make([]jen.Code, len(decls))
	for i, ic := range decls {
		spec := []jen.Code{gen.Field("Name", jen.Lit(ic.Name))}
		spec = append(spec, gen.Optional("Version", ic.Version, "Description", ic.Description)...)
		events := make([]jen.Code, len(ic.Events))
		for j, e := range ic.Events {
			events[j] = jen.Lit(e)
		}
		spec = append(spec, gen.Field("Events", jen.Index().String().Values(events...)))
		switch ic.Phase {
		case "response":
			spec = append(spec, gen.Field("Phases", f.Qual(host, "OnResponse")))
		case "both":
			spec = append(spec, gen.Field("Phases", f.Qual(host, "OnBoth")))
		}
		if ic.Audit {
			spec = append(spec, gen.Field("Audit", jen.True()))
		}
		if ic.FailOpen {
			spec = append(spec, gen.Field("FailOpen", jen.True()))
		}
		if ic.HasHint {
			spec = append(spec, gen.Field("PriorityHint", f.Qual(pathWire, "Hint").Call(jen.Lit(ic.PriorityHint))))
		}
		build := "Validator"
		if ic.Mutator {
			build = "Mutator"
		}
		items[i] = f.Qual(host, build).Call(f.Qual(host, "Spec").Custom(gen.Multi("{", "}"), spec...), jen.Id(ic.Func))
		f.Guard(ic.Func, jen.Id(ic.Func))
	}
	j.Func().Id(Func).Params().Index().Add(f.Qual(host, "Interceptor")).Block(
		jen.Return(jen.Index().Add(f.Qual(host, "Interceptor")).Custom(gen.Multi("{", "}"), items...)),
	)
}
