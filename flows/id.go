package flows

import (
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/internal/suggest"
)

// ID names a flow, "namespace:name", e.g. "tools:call-tool".
type ID string

// The flows hookflow runs, one per MCP method it serves.
const (
	ToolsCallTool                  ID = "tools:call-tool"
	ToolsListTools                 ID = "tools:list-tools"
	ResourcesReadResource          ID = "resources:read-resource"
	ResourcesListResources         ID = "resources:list-resources"
	ResourcesListResourceTemplates ID = "resources:list-resource-templates"
	PromptsGetPrompt               ID = "prompts:get-prompt"
	PromptsListPrompts             ID = "prompts:list-prompts"
	CompletionComplete             ID = "completion:complete"
	SessionInitialize              ID = "session:initialize"
)

// Count is the number of flows. Arrays indexed by [ID.Index] have this length.
const Count = 9

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

// Info describes one flow: its ID, the MCP method that starts it and the kind
// of entity it resolves.
type Info struct {
	ID     ID
	Method string
	Entity EntityKind
}

var table = [Count]Info{
	{ToolsCallTool, "tools/call", EntityTool},
	{ToolsListTools, "tools/list", EntityNone},
	{ResourcesReadResource, "resources/read", EntityResource},
	{ResourcesListResources, "resources/list", EntityNone},
	{ResourcesListResourceTemplates, "resources/templates/list", EntityNone},
	{PromptsGetPrompt, "prompts/get", EntityPrompt},
	{PromptsListPrompts, "prompts/list", EntityNone},
	{CompletionComplete, "completion/complete", EntityCompletion},
	{SessionInitialize, "initialize", EntityNone},
}

// All returns the description of every flow, in a fixed order.
func All() []Info {
	out := make([]Info, Count)
	copy(out, table[:])
	return out
}

// Index returns the flow's position in [All], or -1 for an unknown ID.
// It is allocation-free and costs the same whatever the registry's size.
func (id ID) Index() int {
	switch id {
	case ToolsCallTool:
		return 0
	case ToolsListTools:
		return 1
	case ResourcesReadResource:
		return 2
	case ResourcesListResources:
		return 3
	case ResourcesListResourceTemplates:
		return 4
	case PromptsGetPrompt:
		return 5
	case PromptsListPrompts:
		return 6
	case CompletionComplete:
		return 7
	case SessionInitialize:
		return 8
	}
	return -1
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

// ForMethod returns the flow an MCP method starts, e.g. "tools/call" →
// [ToolsCallTool].
func ForMethod(method string) (ID, bool) {
	for _, f := range table {
		if f.Method == method {
			return f.ID, true
		}
	}
	return "", false
}
