// Package interceptplan is where SEP-2624 interceptors run in a hookflow
// flow: which flows they may hook (by the flow's MCP method), the stage
// and priority of each phase, and whether a phase's payload arrives (so
// validators run before mutators). plugins/intercept runs them there and
// hookgen -explain shows the positions; both read this package, which
// depends on the flow table, stages and priorities only.
package interceptplan

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// ContextOperation reports whether the MCP method is a context operation
// in the SEP's sense, so that interceptors may hook it: the events the SEP
// enumerates, and resources/templates/list, which lists what enters context
// as resources/list does. initialize, ping and notifications are not (the
// SEP's negative space: no hook, not even "*", matches them), nor are
// completion/complete and logging/setLevel, which the SEP leaves out on
// purpose, nor resources/unsubscribe, nor is any method hookflow does not
// know to be one.
func ContextOperation(method string) bool {
	switch method {
	case "tools/list", "tools/call", "prompts/list", "prompts/get",
		"resources/list", "resources/read", "resources/subscribe", "resources/templates/list",
		"sampling/createMessage", "elicitation/create", "roots/list":
		return true
	}
	return false
}

// Event returns the SEP-2624 event of a flow, its MCP method, and whether
// interceptors may hook the flow at all. It reads the flow table, so a
// flow added to it is mapped by its method.
func Event(flow flows.ID) (event string, ok bool) {
	if !flow.Valid() {
		return "", false
	}
	info := flow.Info()
	if ContextOperation(info.Method) {
		return info.Method, true
	}
	return "", false
}

// Where returns where the interceptors of a phase run: request-phase
// interceptors (response false) in beforeExecute at
// priority.InterceptRequest, response-phase ones in afterExecute at
// priority.InterceptResponse.
func Where(response bool) (stages.Stage, int) {
	if response {
		return stages.AfterExecute, priority.InterceptResponse
	}
	return stages.BeforeExecute, priority.InterceptRequest
}

// Receiving reports whether a hookflow server receives the payload of a
// phase of flow (the request when response is false): a flow the client
// starts receives its request and sends its result; a request the server
// sends its client is sent, and its result received.
func Receiving(flow flows.ID, response bool) bool {
	return !response == (flow.Info().Direction == flows.FromClient)
}
