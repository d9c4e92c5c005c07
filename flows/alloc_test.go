package flows_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// The hot path allocates nothing: a whole run (plan load, Context acquire,
// init, run, release) with no hooks, with ten hooks that do nothing, with
// an observer, and with hooks that record a decision and a fail-open
// failure on every run (the recycled Context's records keep their room).
func TestRunAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	tests := []struct {
		name      string
		hooks     int
		observer  bool
		recording bool
	}{
		{"hooks=0", 0, false, false},
		{"hooks=10", 10, false, false},
		{"hooks=100", 100, false, false},
		{"hooks=10 observed", 10, true, false},
		{"hooks=10 observed recording", 10, true, true},
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
			run := func() {
				if err := runOnce(r, ref, ctx, steps); err != nil {
					t.Fatal(err)
				}
			}
			if tt.recording {
				seen := 0
				plan := recordingPlan(ref.Load(), &seen)
				run = func() {
					if _, err := r.Run(ctx, flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: steps}); err != nil {
						t.Fatal(err)
					}
					if seen != 2 {
						t.Fatalf("finally saw %d decisions and failures, want 2", seen)
					}
				}
			}
			if allocs := testing.AllocsPerRun(1000, run); allocs != 0 {
				t.Errorf("a run allocates %v times, want 0", allocs)
			}
			if tt.observer && events == 0 {
				t.Error("the observer saw nothing")
			}
		})
	}
}

// recordingPlan returns p with two more beforeExecute hooks, one that
// records a decision and one that fails open with an error made once, and
// a finally hook that counts what the run recorded into *seen.
func recordingPlan(p *flows.Plan, seen *int) *flows.Plan {
	failure := &flows.Error{Code: flows.CodeAborted, Msg: "backend down"}
	q := *p
	q.Stages[stages.BeforeExecute] = append(slices.Clip(q.Stages[stages.BeforeExecute]),
		flows.PlanEntry{ID: "decides", Fn: func(c *flows.Context) error {
			c.Decide(flows.Decision{By: "bench", Outcome: "allowed"})
			return nil
		}},
		flows.PlanEntry{ID: "fails-open", OnFailure: flows.FailOpen, Fn: func(*flows.Context) error { return failure }})
	q.Stages[stages.Finally] = append(slices.Clip(q.Stages[stages.Finally]),
		flows.PlanEntry{ID: "counts", Fn: func(c *flows.Context) error {
			*seen = len(c.Decisions()) + len(c.Failures())
			return nil
		}})
	return &q
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
