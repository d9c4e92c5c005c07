package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// MaxInput bounds what [ReadInput] reads: a tool's input and response can
// be large (a file written, a command's output).
const MaxInput = 16 << 20

// Input is the JSON an agent writes on a command hook's standard input:
// the fields this package reads, which the three agents name alike.
type Input struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	// ToolName, ToolInput and ToolResponse come with tool events;
	// ToolResponse after the call only.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	// StopHookActive says the agent is already continuing because a stop
	// hook refused a stop.
	StopHookActive bool `json:"stop_hook_active"`
}

// ReadInput decodes the hook input from r, at most [MaxInput] bytes.
func ReadInput(r io.Reader) (*Input, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook input: %w", err)
	}
	if len(b) > MaxInput {
		return nil, fmt.Errorf("the hook input is larger than %d bytes", MaxInput)
	}
	var in Input
	if err := json.Unmarshal(b, &in); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("the hook input is not JSON: %v at byte %d", err, syn.Offset)
		}
		return nil, fmt.Errorf("the hook input: %w", err)
	}
	if in.HookEventName == "" {
		return nil, errors.New("the hook input has no hook_event_name")
	}
	return &in, nil
}

// Firing returns the declared event in carries, as [client.Hooks.Fire]
// takes it, with the tool call of a tool event: named as the agent names
// it, with the names the other agents give the same built-in tool as
// its aliases ([Agent.ToolAliases]), so that a declaration for "Bash"
// fires for Gemini CLI's run_shell_command.
func (a Agent) Firing(in *Input) (client.Firing, error) {
	b, ok := a.bindingOf(in.HookEventName)
	if !ok {
		var names []string
		for _, b := range a.bindings() {
			names = append(names, b.hook)
		}
		return client.Firing{}, fmt.Errorf("%s hook event %q carries no declared event (events: %s)", a, in.HookEventName, strings.Join(names, ", "))
	}
	f := client.Firing{Event: b.event, SessionID: in.SessionID}
	if b.tool {
		f.Tool = &declared.ToolCall{Name: in.ToolName, Aliases: a.ToolAliases(in.ToolName), Input: in.ToolInput, Output: in.ToolResponse}
	}
	return f, nil
}

func (a Agent) bindingOf(hookEvent string) (binding, bool) {
	for _, b := range a.bindings() {
		if b.hook == hookEvent {
			return b, true
		}
	}
	return binding{}, false
}
