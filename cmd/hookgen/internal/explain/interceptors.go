package explain

import (
	"math"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// interceptorPositions returns, for a flow whose method has an SEP-2624
// event, the positions where plugins/intercept runs remote interceptors
// (which hookgen cannot list: they come from the hosts at start), as lines
// of the plan. At equal priority they are shown after the package's
// hooks (the plugin's registration order depends on its Use call).
func interceptorPositions(flow flows.ID) []planned {
	event, ok := intercept.Event(flow)
	if !ok {
		return nil
	}
	var out []planned
	for _, phase := range []wire.Phase{wire.Request, wire.Response} {
		stage, prio := intercept.Where(phase)
		what := "validators, then mutators"
		if !intercept.Receiving(flow, phase) {
			what = "mutators, then validators"
		}
		out = append(out, planned{stage: stage, priority: prio, seq: math.MaxInt,
			id: "(remote interceptors of " + event + " " + string(phase) + ", when plugins/intercept is attached: " + what + ")"})
	}
	return out
}
