package explain

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Header writes the title of the plans of flow and, when verbose, what
// -explain assumes about registration order.
func Header(w io.Writer, flow flows.ID, verbose bool) {
	fmt.Fprintf(w, "hookgen -explain %s (descending priority; ties in registration order)\n", flow)
	if !verbose {
		return
	}
	fmt.Fprintf(w, `Registration order, as hookgen assumes it: (1) the package's hook
functions, registered by RegisterHookflow in source order, files in
file-name order; (2) the hooks of the package's plugin types, attached at
Start (shown in plugin-name order: the runtime uses the order of the Use
calls); (3) the entity's embedded hooks, registered at Start. Hooks of other
packages and plugins written in code are not shown. %s stands for the
server scope's path (the server's name); a plugin attached to an app has
the path %s/app:<name>/plugin:<name>. A line in parentheses is a position,
not a hook: where plugins/intercept runs the interceptors of remote hosts,
which are known only when the server starts.
`, analyze.ServerPlaceholder, analyze.ServerPlaceholder)
}

// planned is one hook in a plan.
type planned struct {
	stage    stages.Stage
	priority int
	seq      int
	id       string
	hook     *analyze.HookDecl
}

// A Positioner is the part of a hookgen extension (package ext) that
// -explain -v asks for the positions it adds to a flow's plan.
type Positioner interface {
	// Positions returns the positions in flow's plan that are not hooks of
	// the package, e.g. where a plugin runs hooks it learns at start.
	Positions(flow flows.ID) []Position
}

// A Position is a line of a plan that is not a hook: ID, in parentheses,
// says what runs there. At equal priority it is shown after the
// package's hooks.
type Position struct {
	Stage    stages.Stage
	Priority int
	ID       string
}

// Package writes the plan of flow for the package's entities; verbose adds
// the positions of exts.
func Package(w io.Writer, p *analyze.Package, flow flows.ID, verbose bool, exts ...Positioner) {
	fmt.Fprintf(w, "\npackage %s\n", p.Path)
	var external []planned
	if verbose {
		for _, x := range exts {
			for _, pos := range x.Positions(flow) {
				external = append(external, planned{stage: pos.Stage, priority: pos.Priority, seq: math.MaxInt, id: pos.ID})
			}
		}
	}
	seq := 0
	add := func(list *[]planned, h *analyze.HookDecl, id string) {
		if h.Flow != flow {
			return
		}
		*list = append(*list, planned{stage: h.Stage, priority: h.Priority, seq: seq, id: id, hook: h})
		seq++
	}
	for _, h := range p.Externals {
		add(&external, h, analyze.ExternalID(analyze.ServerPlaceholder, h))
	}
	for _, pl := range p.Plugins {
		for _, h := range pl.Hooks {
			add(&external, h, analyze.PluginID(analyze.ServerPlaceholder, pl.Name, h))
		}
	}
	// The entity kinds whose embedded hooks run in flow, from the table.
	var kinds []analyze.Kind
	for _, k := range []analyze.Kind{analyze.KindTool, analyze.KindResource, analyze.KindTemplate, analyze.KindPrompt} {
		if k.Flow() == flow {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		// No embedded hooks: one plan for every run of the flow.
		fmt.Fprintf(w, "\n%s (every request: the flow has no embedded hooks)\n", flow)
		write(w, external)
		return
	}
	n := 0
	for _, e := range p.Entities {
		if !slices.Contains(kinds, e.Kind) {
			continue
		}
		n++
		hooks := slices.Clone(external)
		s := seq
		for _, h := range e.Hooks {
			hooks = append(hooks, planned{stage: h.Stage, priority: h.Priority, seq: s, id: analyze.EmbeddedID(p.RuntimePath, e.TypeName, h), hook: h})
			s++
		}
		typ := e.TypeName
		if e.Pointer {
			typ = "*" + typ
		}
		fmt.Fprintf(w, "\n%s %s (%s)\n", e.Kind, e.Name(), typ)
		write(w, hooks)
	}
	if n == 0 {
		fmt.Fprintf(w, "\nno %s in this package; every %s runs these external hooks:\n", plural(kinds[0]), kinds[0])
		write(w, external)
	}
}

func plural(k analyze.Kind) string {
	if k == analyze.KindResource {
		return "resources or resource templates"
	}
	return k.String() + "s"
}

// write prints hooks per stage in run order, sorted by the runtime's rule
// (priority.Compare) and printed as the runtime prints its plans
// (flows.Plan.Explain).
func write(w io.Writer, hooks []planned) {
	slices.SortStableFunc(hooks, func(a, b planned) int {
		return cmp.Or(cmp.Compare(a.stage, b.stage), priority.Compare(a.priority, uint64(a.seq), b.priority, uint64(b.seq)))
	})
	var plan flows.Plan
	for _, h := range hooks {
		e := flows.PlanEntry{ID: h.id, Priority: h.priority}
		if h.hook != nil { // nil for a Position
			e.Timeout, e.OnFailure = h.hook.Timeout, h.hook.OnFailure
		}
		plan.Stages[h.stage] = append(plan.Stages[h.stage], e)
	}
	_ = plan.Explain(w)
}

// Flows returns the flow IDs, for usage messages.
func Flows() string {
	var ids []string
	for _, f := range flows.All() {
		ids = append(ids, string(f.ID))
	}
	return strings.Join(ids, ", ")
}
