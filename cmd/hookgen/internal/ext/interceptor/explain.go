package interceptor

import (
	"github.com/hookflow/hookflow/cmd/hookgen/internal/explain"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/interceptplan"
)

// Positions returns, for a flow whose method has an SEP-2624 event, the
// positions where plugins/intercept runs remote interceptors (which
// hookgen cannot list: they come from the hosts at start).
func (Extension) Positions(flow flows.ID) []explain.Position {
	event, ok := interceptplan.Event(flow)
	if !ok {
		return nil
	}
	var out []explain.Position
	for _, phase := range []string{"request", "response"} {
		response := phase == "response"
		stage, prio := interceptplan.Where(response)
		what := "validators, then mutators"
		if !interceptplan.Receiving(flow, response) {
			what = "mutators, then validators"
		}
		out = append(out, explain.Position{Stage: stage, Priority: prio,
			ID: "(remote interceptors of " + event + " " + phase + ", when plugins/intercept is attached: " + what + ")"})
	}
	return out
}
