package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
)

// pathWire is the import path of the SEP-2624 messages (for priority
// hints).
const pathWire = "github.com/hookflow/hookflow/plugins/intercept/wire"

// interceptors renders HookflowInterceptors: the package's //hook:validator
// and //hook:mutator functions as host.Interceptor values, in source order.
func (g *renderer) interceptors() {
	host := analyze.PathHost
	g.f.Comment(fmt.Sprintf("%s returns the package's interceptors, for a host to serve", analyze.InterceptorsFunc))
	g.f.Comment("(host.Handler, or host.New attached to a server). Generated from the validator")
	g.f.Comment(fmt.Sprintf("and mutator directives of package %s.", g.p.Name))
	items := make([]jen.Code, len(g.p.Interceptors))
	for i, ic := range g.p.Interceptors {
		spec := []jen.Code{field("Name", jen.Lit(ic.Name))}
		spec = append(spec, optional("Version", ic.Version, "Description", ic.Description)...)
		events := make([]jen.Code, len(ic.Events))
		for j, e := range ic.Events {
			events[j] = jen.Lit(e)
		}
		spec = append(spec, field("Events", jen.Index().String().Values(events...)))
		switch ic.Phase {
		case "response":
			spec = append(spec, field("Phases", g.qual(host, "OnResponse")))
		case "both":
			spec = append(spec, field("Phases", g.qual(host, "OnBoth")))
		}
		if ic.Audit {
			spec = append(spec, field("Audit", jen.True()))
		}
		if ic.FailOpen {
			spec = append(spec, field("FailOpen", jen.True()))
		}
		if ic.HasHint {
			spec = append(spec, field("PriorityHint", g.qual(pathWire, "Hint").Call(jen.Lit(ic.PriorityHint))))
		}
		build := "Validator"
		if ic.Mutator {
			build = "Mutator"
		}
		items[i] = g.qual(host, build).Call(g.qual(host, "Spec").Custom(multi("{", "}"), spec...), jen.Id(ic.Func))
	}
	g.f.Func().Id(analyze.InterceptorsFunc).Params().Index().Add(g.qual(host, "Interceptor")).Block(
		jen.Return(jen.Index().Add(g.qual(host, "Interceptor")).Custom(multi("{", "}"), items...)),
	)
}
