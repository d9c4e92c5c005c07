package flows_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// countSteps validates {"n": <positive int>} into an int and executes by
// returning it; the validated arguments are canonical JSON.
var countSteps = stepFuncs{
	validate: func(c *flows.Context) (any, json.RawMessage, error) {
		raw, _ := c.Input().(json.RawMessage)
		var v struct{ N int }
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, nil, err
		}
		if v.N <= 0 {
			return nil, nil, fmt.Errorf("n must be positive, got %d", v.N)
		}
		return v.N, json.RawMessage(fmt.Sprintf(`{"n":%d}`, v.N)), nil
	},
	execute: func(c *flows.Context) (any, error) { return c.Input(), nil },
}

func TestRevalidate(t *testing.T) {
	tests := []struct {
		name    string
		stage   stages.Stage
		raw     string
		out     any    // the run's output
		args    string // Arguments() after Revalidate
		code    flows.Code
		wantErr bool
	}{
		{name: "beforeExecute, valid", stage: stages.BeforeExecute, raw: `{"N": 7}`, out: 7, args: `{"n":7}`},
		{name: "afterValidation, valid", stage: stages.AfterValidation, raw: `{"N": 9}`, out: 9, args: `{"n":9}`},
		{name: "beforeExecute, invalid keeps the input", stage: stages.BeforeExecute, raw: `{"N": -1}`, out: 2, args: `{"n":2}`, code: flows.CodeInvalidInput, wantErr: true},
		{name: "beforeValidation refused", stage: stages.BeforeValidation, raw: `{"N": 5}`, out: 2, args: `{"n":2}`, code: flows.CodeNotAllowed, wantErr: true},
		{name: "afterExecute refused", stage: stages.AfterExecute, raw: `{"N": 5}`, out: 2, args: `{"n":2}`, code: flows.CodeNotAllowed, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got error
			var args string
			plan := &flows.Plan{Flow: flows.ToolsCallTool}
			plan.Stages[tt.stage] = []flows.PlanEntry{{ID: "rewrite", Fn: func(c *flows.Context) error {
				got = c.Revalidate(json.RawMessage(tt.raw))
				args = string(c.Arguments())
				return nil
			}}}
			out, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool,
				Input: json.RawMessage(`{"N": 2}`), Plan: plan, Steps: countSteps})
			if err != nil {
				t.Fatalf("run failed: %v", err)
			}
			if out != tt.out {
				t.Errorf("output %v, want %v", out, tt.out)
			}
			if tt.stage != stages.BeforeValidation && args != tt.args {
				t.Errorf("Arguments() = %s, want %s", args, tt.args)
			}
			if (got != nil) != tt.wantErr || flows.CodeOf(got) != tt.code {
				t.Errorf("Revalidate = %v (code %v), want error %v with code %v", got, flows.CodeOf(got), tt.wantErr, tt.code)
			}
		})
	}
}

// A validate step's plain error comes back as an *Error naming the step.
func TestRevalidatePlainError(t *testing.T) {
	plain := errors.New("bad")
	steps := stepFuncs{
		validate: func(c *flows.Context) (any, json.RawMessage, error) {
			if string(c.Input().(json.RawMessage)) == "{}" {
				return 1, nil, nil
			}
			return nil, nil, plain
		},
		execute: func(c *flows.Context) (any, error) { return c.Input(), nil },
	}
	var got error
	plan := &flows.Plan{Flow: flows.ToolsCallTool}
	plan.Stages[stages.BeforeExecute] = []flows.PlanEntry{{ID: "rewrite", Fn: func(c *flows.Context) error {
		got = c.Revalidate(json.RawMessage(`{"x":1}`))
		return nil
	}}}
	if _, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool,
		Input: json.RawMessage(`{}`), Plan: plan, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	var e *flows.Error
	if !errors.As(got, &e) || e.Code != flows.CodeInvalidInput || e.Step != "validate" || !errors.Is(got, plain) {
		t.Errorf("Revalidate = %#v", got)
	}
}
