package intercept

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// contextOperation reports whether the MCP method is a context operation in
// the SEP's sense, so that interceptors may hook it: the events the SEP
// enumerates, and resources/templates/list, which lists what enters context
// as resources/list does. initialize, ping and notifications are not (the
// SEP's negative space: no hook, not even "*", matches them), nor are
// completion/complete and logging/setLevel, which the SEP leaves out on
// purpose, nor resources/unsubscribe, nor is any method hookflow does not
// know to be one.
func contextOperation(method string) bool {
	switch method {
	case "tools/list", "tools/call", "prompts/list", "prompts/get",
		"resources/list", "resources/read", "resources/subscribe", "resources/templates/list",
		"sampling/createMessage", "elicitation/create", "roots/list":
		return true
	}
	return false
}

// Event returns the SEP-2624 event of a flow, its MCP method, and whether
// interceptors may hook the flow at all (see the package doc, "Events").
// It reads the flow table, so a flow added to it is mapped by its method.
func Event(flow flows.ID) (event string, ok bool) {
	if !flow.Valid() {
		return "", false
	}
	info := flow.Info()
	if contextOperation(info.Method) {
		return info.Method, true
	}
	return "", false
}

// Where returns where the interceptors of phase run: request-phase
// interceptors in beforeExecute at priority.InterceptRequest, response-phase
// ones in afterExecute at priority.InterceptResponse.
func Where(phase wire.Phase) (stages.Stage, int) {
	if phase == wire.Response {
		return stages.AfterExecute, priority.InterceptResponse
	}
	return stages.BeforeExecute, priority.InterceptRequest
}

// Receiving reports whether hookflow receives the payload of phase of flow
// across the trust boundary it governs (and so validates before it
// mutates) or sends it (mutates, then validates). A flow the client starts
// (tools/call, resources/read, …) receives its request and sends its
// result; a request the server sends its client (sampling/createMessage,
// elicitation/create, roots/list) is sent, and its result received.
func Receiving(flow flows.ID, phase wire.Phase) bool {
	return (phase == wire.Request) == (flow.Info().Direction == flows.FromClient)
}
