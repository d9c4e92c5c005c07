package flows_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// decisionsSeen is what a finally hook read of a run's decisions.
type decisionsSeen struct {
	reasons []string
	dropped int
}

// readDecisions returns a finally hook that copies the run's decisions
// into seen.
func readDecisions(seen *decisionsSeen) flows.PlanEntry {
	return flows.PlanEntry{ID: "t/read", Fn: func(c *flows.Context) error {
		seen.reasons = seen.reasons[:0]
		for _, d := range c.Decisions() {
			seen.reasons = append(seen.reasons, d.Reason)
		}
		seen.dropped = c.DroppedDecisions()
		return nil
	}}
}

// deciding returns a hook that records n decisions whose reasons are
// their numbers.
func deciding(n int) flows.HookFunc {
	return func(c *flows.Context) error {
		for i := range n {
			c.Decide(flows.Decision{By: "t/decide", Outcome: "allowed", Reason: strconv.Itoa(i)})
		}
		return nil
	}
}

// Decisions come back in the order they were recorded, at most
// MaxDecisions of them, the rest counted; the recycled Context of the next
// run starts with none.
func TestDecisions(t *testing.T) {
	tests := []struct {
		name          string
		n             int
		kept, dropped int
	}{
		{"none", 0, 0, 0},
		{"two", 2, 2, 0},
		{"at the bound", flows.MaxDecisions, flows.MaxDecisions, 0},
		{"a flood", 10_000, flows.MaxDecisions, 10_000 - flows.MaxDecisions},
	}
	r := flows.NewRunner(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen decisionsSeen
			plan := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{
				stages.BeforeExecute: {{ID: "t/decide", Fn: deciding(tt.n)}},
				stages.Finally:       {readDecisions(&seen)},
			}}
			if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan}); err != nil {
				t.Fatal(err)
			}
			if len(seen.reasons) != tt.kept || seen.dropped != tt.dropped {
				t.Fatalf("kept %d, dropped %d; want %d, %d", len(seen.reasons), seen.dropped, tt.kept, tt.dropped)
			}
			for i, reason := range seen.reasons {
				if reason != strconv.Itoa(i) {
					t.Fatalf("decision %d has reason %q: out of order", i, reason)
				}
			}
			// The next run on the recycled Context records nothing.
			empty := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{stages.Finally: {readDecisions(&seen)}}}
			if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: empty}); err != nil {
				t.Fatal(err)
			}
			if len(seen.reasons) != 0 || seen.dropped != 0 {
				t.Errorf("a recycled run starts with %d decisions, %d dropped", len(seen.reasons), seen.dropped)
			}
		})
	}
}

// A hook with a Timeout decides on a copy of the run: what it records is
// kept when it returns in time, and dropped when it is abandoned, even if
// it records on after the run has ended (-race checks that the abandoned
// hook never touches the run's Context).
func TestDecisionsOfTimedHooks(t *testing.T) {
	release := make(chan struct{})
	var abandoned sync.WaitGroup
	abandoned.Add(1)
	var seen decisionsSeen
	plan := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{
		stages.BeforeValidation: {{ID: "t/first", Fn: deciding(1)}},
		stages.AfterValidation:  {{ID: "t/in-time", Timeout: time.Minute, Fn: deciding(2)}},
		stages.BeforeExecute: {{ID: "t/late", Timeout: time.Millisecond, OnFailure: flows.FailOpen, Fn: func(c *flows.Context) error {
			defer abandoned.Done()
			<-release
			deciding(flows.MaxDecisions + 1)(c)
			return nil
		}}},
		stages.Finally: {readDecisions(&seen)},
	}}
	r := flows.NewRunner(nil)
	if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan}); err != nil {
		t.Fatal(err)
	}
	// The run is over and its Context recycled: another run decides on it
	// while the abandoned hook records on its copy.
	again := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{stages.BeforeExecute: {{ID: "t/again", Fn: deciding(3)}}}}
	close(release)
	for range 100 {
		if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: again}); err != nil {
			t.Fatal(err)
		}
	}
	abandoned.Wait()
	// t/first's decision "0", then t/in-time's "0" and "1".
	if got := len(seen.reasons); got != 3 || seen.dropped != 0 {
		t.Fatalf("finally saw %v (dropped %d), want the first hook's and the in-time hook's three", seen.reasons, seen.dropped)
	}
}

// A run whose hooks record no decision allocates nothing for them, even
// with a reader in finally; a run that records some allocates nothing
// either once its recycled Context has room.
func TestDecisionAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	var seen decisionsSeen
	seen.reasons = make([]string, 0, flows.MaxDecisions)
	for _, n := range []int{0, 3, flows.MaxDecisions + 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r := flows.NewRunner(nil)
			plan := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{
				stages.BeforeExecute: {{ID: "t/decide", Fn: deciding(n)}},
				stages.Finally:       {readDecisions(&seen)},
			}}
			run := func() {
				if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan}); err != nil {
					t.Fatal(err)
				}
			}
			run()
			allocs := testing.AllocsPerRun(1000, run)
			if allocs != 0 {
				t.Errorf("a run recording %d decisions allocates %v times, want 0", n, allocs)
			}
		})
	}
}
