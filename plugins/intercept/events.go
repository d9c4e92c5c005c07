package intercept

import (
	"fmt"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/interceptplan"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
	"github.com/hookflow/hookflow/stages"
)

// contextOperation reports whether interceptors may hook the MCP method
// (interceptplan.ContextOperation).
func contextOperation(method string) bool { return interceptplan.ContextOperation(method) }

// Event returns the SEP-2624 event of a flow, its MCP method, and whether
// interceptors may hook the flow at all (see the package doc, "Events").
// It reads the flow table, so a flow added to it is mapped by its method.
func Event(flow flows.ID) (event string, ok bool) { return interceptplan.Event(flow) }

// Where returns where the interceptors of phase run: request-phase
// interceptors in beforeExecute at priority.InterceptRequest, response-phase
// ones in afterExecute at priority.InterceptResponse.
func Where(phase wire.Phase) (stages.Stage, int) { return interceptplan.Where(phase == wire.Response) }

// Direction is which way a payload crosses the trust boundary of the side
// that runs a chain on it, which fixes the order of the chain's two
// passes, as the SEP orders them: what arrives is validated, then mutated
// (a validator sees what the other side sent); what leaves is mutated,
// then validated (a validator sees what will be sent). Every chain runs
// with a Direction: the server side's from its flow ([DirectionOf]), the
// sending side's from the middleware that runs it ([Chain]).
type Direction uint8

// The directions.
const (
	// Receive: the payload arrives (a request a server receives, the
	// result a client receives): validators, then mutators.
	Receive Direction = iota + 1
	// Send: the payload leaves (a request a client sends, the result a
	// server sends): mutators, then validators.
	Send
)

// String returns "receive" or "send".
func (d Direction) String() string {
	switch d {
	case Receive:
		return "receive"
	case Send:
		return "send"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// reverse returns the direction of the other phase of the same exchange:
// a request sent has its result received, and the other way round.
func (d Direction) reverse() Direction {
	if d == Send {
		return Receive
	}
	return Send
}

// DirectionOf returns the direction in which a hookflow server's payload
// of phase of flow crosses the trust boundary it governs. A flow the
// client starts (tools/call, resources/read, …) receives its request and
// sends its result; a request the server sends its client
// (sampling/createMessage, elicitation/create, roots/list) is sent, and
// its result received.
func DirectionOf(flow flows.ID, phase wire.Phase) Direction {
	if interceptplan.Receiving(flow, phase != wire.Request) {
		return Receive
	}
	return Send
}

// Receiving reports whether hookflow receives the payload of phase of flow
// (and so validates before it mutates): DirectionOf(flow, phase) is
// Receive.
func Receiving(flow flows.ID, phase wire.Phase) bool {
	return DirectionOf(flow, phase) == Receive
}
