package flows_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// A plugin places its hooks with flows alone: the stages are package
// stages' own, Before and After sit one step from a position, and a
// placement past either end is an error at registration.
func TestPlacement(t *testing.T) {
	if flows.BeforeExecute != stages.BeforeExecute || flows.Finally != stages.Finally {
		t.Fatal("the stage constants are not package stages'")
	}
	fn := func(*flows.Context) error { return nil }
	base := flows.Hook{Flow: flows.ToolsCallTool, Stage: flows.BeforeExecute, Name: "h", Fn: fn}
	tests := []struct {
		name    string
		h       flows.Hook
		want    int
		invalid bool
	}{
		{"before auth", base.Before(flows.PriorityAuth), priority.Auth + 1, false},
		{"after auth", base.After(flows.PriorityAuth), priority.Auth - 1, false},
		{"after the cache lookup", base.After(flows.PriorityCache), priority.Cache - 1, false},
		{"first", base.At(flows.PriorityFirst), priority.Max, false},
		{"before first", base.Before(flows.PriorityFirst), priority.Max + 1, true},
		{"after last", base.After(flows.PriorityLast), priority.Min - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.h.Priority != tt.want {
				t.Errorf("Priority = %d, want %d", tt.h.Priority, tt.want)
			}
			err := tt.h.Validate()
			if tt.invalid != (err != nil) || (err != nil && !strings.Contains(err.Error(), "out of range")) {
				t.Errorf("Validate() = %v, want invalid %v", err, tt.invalid)
			}
		})
	}
}
