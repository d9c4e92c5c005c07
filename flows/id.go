package flows

import (
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/internal/suggest"
)

// ID names a flow, "namespace:name", e.g. "tools:call-tool". The constants
// (one per flow, in table_gen.go) are generated from the flow table.
type ID string

// EntityKind says what kind of entity a flow resolves before its first stage.
type EntityKind uint8

// The entity kinds. A flow with EntityNone has no resolved entity (list flows,
// initialize).
const (
	EntityNone EntityKind = iota
	EntityTool
	EntityResource // a resource or a resource template
	EntityPrompt
	EntityCompletion // the prompt or resource a completion refers to
)

var entityKindNames = [...]string{"none", "tool", "resource", "prompt", "completion"}

// String returns the kind's name, e.g. "tool".
func (k EntityKind) String() string {
	if int(k) < len(entityKindNames) {
		return entityKindNames[k]
	}
	return fmt.Sprintf("EntityKind(%d)", uint8(k))
}

// ViewKind names the typed view a flow's hooks may take instead of a plain
// *[Context]. The constants, one per view the flow table names, are
// generated from it (table_gen.go).
type ViewKind uint8

// String returns the name of the view's type in this package, e.g.
// "ToolCall".
func (k ViewKind) String() string {
	if int(k) < len(viewKindNames) {
		return viewKindNames[k]
	}
	return fmt.Sprintf("ViewKind(%d)", uint8(k))
}

// Direction says which side sends the message that starts a flow.
type Direction uint8

// The directions.
const (
	// FromClient: a request or notification the server receives (the
	// zero value: most flows are the client's requests).
	FromClient Direction = iota
	// FromServer: a request or notification the server sends its client:
	// sampling, elicitation, roots, progress, logging, list changes.
	FromServer
)

var directionNames = [...]string{"client→server", "server→client"}

// String returns "client→server" or "server→client".
func (d Direction) String() string {
	if int(d) < len(directionNames) {
		return directionNames[d]
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Info describes one flow: one row of the flow table.
type Info struct {
	// ID is the flow's ID, e.g. "tools:call-tool".
	ID ID
	// Const is the name of the ID's constant in this package, e.g.
	// "ToolsCallTool".
	Const string
	// Method is the MCP method that starts the flow, e.g. "tools/call".
	// A method ending in "/*" stands for every method with that prefix
	// that no other row of the same direction names: "notifications/*" is
	// every notification.
	Method string
	// Alias is another MCP method that starts the same flow, or "".
	Alias string
	// Direction says who sends the message: the client (the zero value)
	// or the server.
	Direction Direction
	// Entity is the kind of entity the flow resolves before its first stage.
	Entity EntityKind
	// View is the typed view the flow's hooks may take.
	View ViewKind
	// Result is the name of the flow's result type in the MCP SDK's mcp
	// package, e.g. "CallToolResult"; for ViewList it is the R of List[R].
	Result string
	// Doc says in a phrase what the flow's hooks can do, for the flow table
	// of docs/flows.md.
	Doc string
}

// All returns the description of every flow, in a fixed order: the order of
// [ID.Index].
func All() []Info {
	out := make([]Info, Count)
	copy(out, table[:])
	return out
}

// Valid reports whether id names one of hookflow's flows.
func (id ID) Valid() bool { return id.Index() >= 0 }

// Info returns the flow's description. It panics for an unknown ID; check
// [ID.Valid] first when the ID comes from input.
func (id ID) Info() Info {
	i := id.Index()
	if i < 0 {
		panic(fmt.Sprintf("flows: unknown flow %q", string(id)))
	}
	return table[i]
}

// Namespace returns the part before the colon, e.g. "tools".
func (id ID) Namespace() string {
	ns, _, _ := strings.Cut(string(id), ":")
	return ns
}

// Name returns the part after the colon, e.g. "call-tool".
func (id ID) Name() string {
	_, name, _ := strings.Cut(string(id), ":")
	return name
}

// String returns the ID as written, e.g. "tools:call-tool".
func (id ID) String() string { return string(id) }

// Parse returns the flow named s, or an error that suggests the closest flow
// ID for a near miss.
func Parse(s string) (ID, error) {
	id := ID(s)
	if id.Valid() {
		return id, nil
	}
	if best, ok := Suggest(s); ok {
		return "", fmt.Errorf("unknown flow %q (did you mean %q?)", s, string(best))
	}
	return "", fmt.Errorf("unknown flow %q", s)
}

// Suggest returns the flow ID closest to s when one is close enough to be a
// likely typo.
func Suggest(s string) (ID, bool) {
	ids := make([]string, Count)
	for i, f := range table {
		ids[i] = string(f.ID)
	}
	best, ok := suggest.Closest(s, ids)
	return ID(best), ok
}

// ForMethod returns the flow that a message the server receives starts,
// by its MCP method, e.g. "tools/call" → [ToolsCallTool], "server/discover"
// → [SessionInitialize], "notifications/initialized" →
// [NotificationsFromClient]. It is allocation-free and reads no map, so the
// framework dispatches with it on every request.
func ForMethod(method string) (ID, bool) {
	i := methodIndex(method)
	if i < 0 {
		return "", false
	}
	return table[i].ID, true
}

// ForSent returns the flow that a message the server sends its client
// starts, by its MCP method, e.g. "sampling/createMessage" →
// [SamplingCreateMessage], "notifications/progress" →
// [NotificationsFromServer]. Like [ForMethod] it is allocation-free.
func ForSent(method string) (ID, bool) {
	i := sentIndex(method)
	if i < 0 {
		return "", false
	}
	return table[i].ID, true
}
