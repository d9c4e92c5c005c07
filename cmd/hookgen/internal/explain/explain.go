package explain

import (
	"cmp"
	"fmt"
	"io"
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
the path %s/app:<name>/plugin:<name>.
`, analyze.ServerPlaceholder, analyze.ServerPlaceholder)
}

// planned is one hook in a plan.
type planned struct {
	stage    stages.Stage
	priority int
	seq      int
	id       string
}

// Package writes the plan of flow for the package's entities.
func Package(w io.Writer, p *analyze.Package, flow flows.ID) {
	fmt.Fprintf(w, "\npackage %s\n", p.Path)
	var external []planned
	seq := 0
	add := func(list *[]planned, h *analyze.HookDecl, id string) {
		if h.Flow != flow {
			return
		}
		*list = append(*list, planned{stage: h.Stage, priority: h.Priority, seq: seq, id: id})
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
			hooks = append(hooks, planned{stage: h.Stage, priority: h.Priority, seq: s, id: analyze.EmbeddedID(p.RuntimePath, e.TypeName, h)})
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

// write prints hooks per stage in run order.
func write(w io.Writer, hooks []planned) {
	if len(hooks) == 0 {
		fmt.Fprintln(w, "  no hooks")
		return
	}
	// The runtime's rule, priority.Compare, within each stage.
	slices.SortStableFunc(hooks, func(a, b planned) int {
		return cmp.Or(cmp.Compare(a.stage, b.stage), priority.Compare(a.priority, uint64(a.seq), b.priority, uint64(b.seq)))
	})
	width := 1
	for _, h := range hooks {
		width = max(width, len(priority.Format(h.priority)))
	}
	var last stages.Stage = 255
	for _, h := range hooks {
		if h.stage != last {
			fmt.Fprintf(w, "  %s\n", h.stage)
			last = h.stage
		}
		fmt.Fprintf(w, "    %*s  %s\n", width, priority.Format(h.priority), h.id)
	}
}

// Flows returns the flow IDs, for usage messages.
func Flows() string {
	var ids []string
	for _, f := range flows.All() {
		ids = append(ids, string(f.ID))
	}
	return strings.Join(ids, ", ")
}
