package scope_test

import (
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// The request path's registry reads allocate nothing, whatever the
// registry's size: PlanRef.Load and FlowStageHooks.
func TestRegistryReadAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for _, n := range []int{0, 10, 10000} {
		s := populated(t, n)
		ref := s.Plan(flows.ToolsCallTool, ent(typeA), nil)
		ref.Load() // compile once
		tests := []struct {
			name string
			fn   func()
		}{
			{"PlanRef.Load", func() {
				if ref.Load() == nil {
					t.Fatal("nil plan")
				}
			}},
			{"FlowStageHooks", func() { sinkHooks = s.FlowStageHooks(flows.ToolsCallTool, stages.BeforeExecute) }},
			{"FlowHooks", func() { sinkHooks = s.FlowHooks(flows.PromptsGetPrompt) }},
			{"FlowHooksForOwner", func() { sinkHooks = s.FlowHooksForOwner(flows.ToolsListTools, s) }},
			{"TypeHooks", func() { sinkHooks = s.TypeHooks(typeA) }},
		}
		for _, tt := range tests {
			if allocs := testing.AllocsPerRun(1000, tt.fn); allocs != 0 {
				t.Errorf("registered=%d: %s allocates %v times, want 0", n, tt.name, allocs)
			}
		}
	}
}

// After a registry change, the first Load compiles (and allocates); the
// following ones allocate nothing again.
func TestPlanLoadAfterChange(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	s := populated(t, 100)
	ref := s.Plan(flows.ToolsCallTool, ent(typeA), nil)
	first := ref.Load()
	must[[]string](t)(s.Register(ext(flows.ToolsCallTool, stages.Finally, "late", 100)))
	second := ref.Load()
	if second == first || second.Len() != first.Len()+1 {
		t.Fatalf("plan not recompiled: %d then %d hooks", first.Len(), second.Len())
	}
	if allocs := testing.AllocsPerRun(1000, func() { ref.Load() }); allocs != 0 {
		t.Errorf("Load allocates %v times after recompiling, want 0", allocs)
	}
}
