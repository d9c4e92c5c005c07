package plugintest

import (
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// PlanHook is one hook of a plan as [PlanOf] lists it: the stage it runs
// in, its priority and its ID.
type PlanHook struct {
	Stage    stages.Stage
	Priority int
	ID       string
}

// PlanOf returns the hooks srv runs for flow and entity (as
// framework.Server.Explain takes them: a tool name for tools:call-tool, ""
// for a flow without an entity), stage after stage, each stage in run
// order. It fails t when srv has not started or knows neither the flow nor
// the entity.
func PlanOf(t testing.TB, srv *framework.Server, flow flows.ID, entity string) []PlanHook {
	t.Helper()
	p, err := srv.Plan(flow, entity)
	if err != nil {
		t.Fatalf("plugintest: the plan of %s %q: %v", flow, entity, err)
		return nil
	}
	out := make([]PlanHook, 0, p.Len())
	for st := range stages.Stage(stages.Count) {
		for _, h := range p.Hooks(st) {
			out = append(out, PlanHook{Stage: st, Priority: h.Priority, ID: h.ID})
		}
	}
	return out
}

// Plan starts the harness if needed and returns the plan of its server for
// flow and entity (see [PlanOf]).
func (h *Harness) Plan(flow flows.ID, entity string) []PlanHook {
	h.t.Helper()
	h.mustStart()
	return PlanOf(h.t, h.srv, flow, entity)
}
