package flows_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

type weatherIn struct{ City string }
type weatherOut struct{ Temp int }

// On derives the flow from the typed view, so a typed hook cannot be
// registered for a flow whose runs it would misread.
func TestOnDerivesTheFlow(t *testing.T) {
	tests := []struct {
		name string
		hook flows.Hook
		flow flows.ID
	}{
		{"ToolCall", flows.On(stages.BeforeExecute, func(flows.ToolCall[weatherIn, weatherOut]) error { return nil }), flows.ToolsCallTool},
		{"ResourceRead", flows.On(stages.BeforeExecute, func(flows.ResourceRead) error { return nil }), flows.ResourcesReadResource},
		{"PromptGet", flows.On(stages.BeforeExecute, func(flows.PromptGet) error { return nil }), flows.PromptsGetPrompt},
		{"List tools", flows.On(stages.AfterExecute, func(flows.List[*mcp.ListToolsResult]) error { return nil }), flows.ToolsListTools},
		{"List prompts", flows.On(stages.AfterExecute, func(flows.List[*mcp.ListPromptsResult]) error { return nil }), flows.PromptsListPrompts},
		{"List resources", flows.On(stages.AfterExecute, func(flows.List[*mcp.ListResourcesResult]) error { return nil }), flows.ResourcesListResources},
		{"List templates", flows.On(stages.AfterExecute, func(flows.List[*mcp.ListResourceTemplatesResult]) error { return nil }), flows.ResourcesListResourceTemplates},
		{"Completion", flows.On(stages.BeforeExecute, func(flows.Completion) error { return nil }), flows.CompletionComplete},
		{"Initialize", flows.On(stages.AfterExecute, func(flows.Initialize) error { return nil }), flows.SessionInitialize},
		{"Subscribe", flows.On(stages.BeforeExecute, func(flows.Subscribe) error { return nil }), flows.ResourcesSubscribe},
		{"Unsubscribe", flows.On(stages.BeforeExecute, func(flows.Unsubscribe) error { return nil }), flows.ResourcesUnsubscribe},
		{"SetLevel", flows.On(stages.BeforeExecute, func(flows.SetLevel) error { return nil }), flows.LoggingSetLevel},
		{"ClientNotification", flows.On(stages.BeforeExecute, func(flows.ClientNotification) error { return nil }), flows.NotificationsFromClient},
		{"ServerNotification", flows.On(stages.BeforeExecute, func(flows.ServerNotification) error { return nil }), flows.NotificationsFromServer},
		{"Sampling", flows.On(stages.BeforeExecute, func(flows.Sampling) error { return nil }), flows.SamplingCreateMessage},
		{"Elicitation", flows.On(stages.BeforeExecute, func(flows.Elicitation) error { return nil }), flows.ElicitationCreate},
		{"RootsList", flows.On(stages.AfterExecute, func(flows.RootsList) error { return nil }), flows.RootsListRoots},
	}
	// Every view of the flow table is covered.
	views := map[flows.ViewKind]bool{}
	for _, f := range flows.All() {
		views[f.View] = true
	}
	for _, tt := range tests {
		views[tt.hook.Flow.Info().View] = false
	}
	for v, missed := range views {
		if missed && v != flows.ViewContext {
			t.Errorf("no case for the view %s", v)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.hook.Flow != tt.flow {
				t.Errorf("Flow = %s, want %s", tt.hook.Flow, tt.flow)
			}
			if !tt.hook.Typed() {
				t.Error("Typed() = false")
			}
			if err := tt.hook.Named("h").Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
	if (flows.Hook{}).Typed() {
		t.Error("a plain Hook is Typed")
	}
	h := flows.On(stages.Finally, func(flows.Initialize) error { return nil }).Named("n").At(7)
	if h.Name != "n" || h.Priority != 7 || h.Stage != stages.Finally {
		t.Errorf("Named/At: %+v", h)
	}
}

func TestHookValidate(t *testing.T) {
	nop := func(*flows.Context) error { return nil }
	tests := []struct {
		name string
		hook flows.Hook
		want string // "" for valid
	}{
		{"valid", flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "h", Fn: nop}, ""},
		{"unknown flow", flows.Hook{Flow: "tools:cal-tool", Name: "h", Fn: nop}, `hook "h": unknown flow "tools:cal-tool" (did you mean "tools:call-tool"?)`},
		{"bad stage", flows.Hook{Flow: flows.ToolsCallTool, Stage: 9, Name: "h", Fn: nop}, "invalid stage 9"},
		{"nil fn", flows.Hook{Flow: flows.ToolsCallTool, Name: "h"}, "nil hook function"},
		{"nil typed fn", flows.On[flows.PromptGet](stages.Finally, nil), `hook "(unnamed)": nil hook function`},
		{"view of another flow", func() flows.Hook {
			h := flows.On(stages.Finally, func(flows.PromptGet) error { return nil }).Named("h")
			h.Flow = flows.ToolsCallTool
			return h
		}(), "takes flows.PromptGet, the view of prompts:get-prompt, but is registered for tools:call-tool"},
		{"list of no list", flows.On(stages.Finally, func(flows.List[*mcp.CallToolResult]) error { return nil }).Named("h"), "flows.List[*mcp.CallToolResult] is not the view of any flow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.hook.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || flows.CodeOf(err) != flows.CodeInvalid {
				t.Fatalf("Validate() = %v, want CodeInvalid containing %q", err, tt.want)
			}
		})
	}
}

// A ToolCall hook fits only tools of its input and output types.
func TestHookCheck(t *testing.T) {
	typed := flows.On(stages.BeforeExecute, func(flows.ToolCall[weatherIn, weatherOut]) error { return nil }).Named("typed")
	plain := flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "plain", Fn: func(*flows.Context) error { return nil }}
	fits := &flows.Entity{Kind: flows.EntityTool, Name: "weather", In: reflect.TypeFor[weatherIn](), Out: reflect.TypeFor[weatherOut]()}
	other := &flows.Entity{Kind: flows.EntityTool, Name: "echo", In: reflect.TypeFor[string](), Out: reflect.TypeFor[weatherOut]()}
	if err := typed.Check(fits); err != nil {
		t.Errorf("Check(fitting tool) = %v", err)
	}
	err := typed.Check(other)
	if err == nil || !strings.Contains(err.Error(), `hook "typed" takes flows.ToolCall[flows_test.weatherIn, flows_test.weatherOut], but tool "echo" has input string`) {
		t.Errorf("Check(other tool) = %v", err)
	}
	if err := plain.Check(other); err != nil {
		t.Errorf("a plain hook does not fit: %v", err)
	}
	if err := typed.Check(nil); err != nil {
		t.Errorf("Check(nil) = %v", err)
	}
}

// As gives a plain hook a view's accessors, and panics (reported as the
// hook's failure) when the view is another flow's.
func TestAs(t *testing.T) {
	r := flows.NewRunner(nil)
	var got string
	plan := func(fn flows.HookFunc) *flows.Plan {
		return &flows.Plan{Flow: flows.PromptsGetPrompt, Stages: [stages.Count][]flows.PlanEntry{stages.BeforeExecute: {{ID: "h", Fn: fn}}}}
	}
	_, err := r.Run(context.Background(), flows.Run{Flow: flows.PromptsGetPrompt, Input: &mcp.GetPromptParams{Name: "p", Arguments: map[string]string{"a": "b"}},
		Plan: plan(func(c *flows.Context) error {
			got = flows.As[flows.PromptGet](c).Arguments()["a"]
			return nil
		})})
	if err != nil || got != "b" {
		t.Errorf("As[PromptGet]: %q, %v", got, err)
	}
	_, err = r.Run(context.Background(), flows.Run{Flow: flows.PromptsGetPrompt, Plan: plan(func(c *flows.Context) error {
		_ = flows.As[flows.ResourceRead](c)
		return nil
	})})
	if flows.CodeOf(err) != flows.CodePanic {
		t.Fatalf("As of another flow's view: %v, want a panic", err)
	}
	var p *flows.PanicError
	if !errorsAs(err, &p) || !strings.Contains(p.Error(), "flows.ResourceRead is the view of resources:read-resource, not of prompts:get-prompt") {
		t.Errorf("panic = %v", err)
	}
}

func TestHookID(t *testing.T) {
	if got := flows.HookID("srv/plugin:audit", flows.ToolsCallTool, stages.Finally, "record"); got != "srv/plugin:audit/tools:call-tool/finally/record" {
		t.Errorf("HookID = %q", got)
	}
}
