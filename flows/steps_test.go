package flows_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// runCountingSteps counts its executions.
type runCountingSteps struct{ n *int }

func (s runCountingSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}
func (s runCountingSteps) Execute(c *flows.Context) (any, error) { *s.n++; return *s.n, nil }

// A hook reads the run's steps, and can run them in a run of its own.
func TestContextSteps(t *testing.T) {
	n := 0
	steps := runCountingSteps{&n}
	r := flows.NewRunner(nil)
	var inner any
	plan := &flows.Plan{Flow: flows.ToolsCallTool}
	plan.Stages[stages.BeforeExecute] = []flows.PlanEntry{{ID: "h", Fn: func(c *flows.Context) error {
		if c.Steps() != flows.Steps(steps) {
			t.Errorf("Steps() = %v, want the run's", c.Steps())
		}
		out, err := r.Run(context.Background(), flows.Run{Flow: c.Flow(), Steps: c.Steps()})
		inner = out
		return err
	}}}
	out, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: steps})
	if err != nil || inner != 1 || out != 2 {
		t.Errorf("inner run %v, run %v, %v; want 1 and 2", inner, out, err)
	}
	// A run without steps has none.
	plan = &flows.Plan{Flow: flows.ToolsCallTool}
	plan.Stages[stages.Finally] = []flows.PlanEntry{{ID: "f", Fn: func(c *flows.Context) error {
		if c.Steps() != nil {
			t.Errorf("Steps() = %v for a run without steps", c.Steps())
		}
		return nil
	}}}
	if _, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan}); err != nil {
		t.Fatal(err)
	}
}
