package flows_test

import (
	"context"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// The hot path allocates nothing: a whole run (plan load, Context acquire,
// init, run, release) with no hooks, with ten hooks that do nothing, and with
// an observer.
func TestRunAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	tests := []struct {
		name     string
		hooks    int
		observer bool
	}{
		{"hooks=0", 0, false},
		{"hooks=10", 10, false},
		{"hooks=100", 100, false},
		{"hooks=10 observed", 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := benchPlan(t, tt.hooks)
			opts := &flows.RunnerOptions{}
			events := 0
			if tt.observer {
				opts.Observer = func(*flows.Event) { events++ }
			}
			r := flows.NewRunner(opts)
			ctx := context.Background()
			var steps flows.Steps = nopSteps{}
			allocs := testing.AllocsPerRun(1000, func() {
				if err := runOnce(r, ref, ctx, steps); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("a run allocates %v times, want 0", allocs)
			}
			if tt.observer && events == 0 {
				t.Error("the observer saw nothing")
			}
		})
	}
}

// Typed state allocates on a run's first Set only while the recycled
// Context has no room yet; in the steady state it allocates nothing.
func TestStateAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	r := flows.NewRunner(nil)
	plan := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{stages.BeforeExecute: {{ID: "state", Fn: func(c *flows.Context) error {
		counterKey.Set(c, 1)
		if v, ok := counterKey.Get(c); !ok || v != 1 {
			t.Fatal("Get after Set failed")
		}
		counterKey.Delete(c)
		return nil
	}}}}}
	ctx := context.Background()
	run := func() {
		if _, err := r.Run(ctx, flows.Run{Flow: flows.ToolsCallTool, Plan: plan}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if allocs := testing.AllocsPerRun(1000, run); allocs != 0 {
		t.Errorf("Set/Get/Delete on a recycled Context allocates %v times, want 0", allocs)
	}
}
