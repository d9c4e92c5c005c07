package flows_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// finishingSteps are testSteps that also implement flows.Finisher: Finish
// records what the run ended with, reads the state a hook left, and turns
// a failure into an output.
type finishingSteps struct {
	testSteps
	note  flows.Key[string]
	panic bool
}

func (s finishingSteps) Finish(c *flows.Context, out any, err error) (any, error) {
	note, _ := s.note.Get(c)
	s.rec.add(fmt.Sprintf("finish(%v, %v, %q)", out, err != nil, note))
	if s.panic {
		panic("finish broke")
	}
	if err != nil {
		return "recovered by finish", nil
	}
	return out, nil
}

func TestFinisher(t *testing.T) {
	note := flows.NewKey[string]("note")
	tests := []struct {
		name       string
		executeErr error
		panic      bool
		wantTrace  string
		wantOut    any
		wantCode   flows.Code
	}{
		{name: "success", wantTrace: "hook validate execute finally finish(result, false, \"noted\")", wantOut: "result"},
		{name: "failure", executeErr: errors.New("boom"),
			wantTrace: "hook validate execute finally finish(<nil>, true, \"noted\")", wantOut: "recovered by finish"},
		{name: "panic in finish", panic: true,
			wantTrace: "hook validate execute finally finish(result, false, \"noted\")", wantCode: flows.CodePanic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			steps := finishingSteps{testSteps: testSteps{rec: rec, executeErr: tt.executeErr}, note: note, panic: tt.panic}
			plan := &flows.Plan{Flow: flows.ToolsCallTool, Stages: [stages.Count][]flows.PlanEntry{
				stages.BeforeValidation: {{ID: "t/hook", Fn: func(c *flows.Context) error {
					rec.add("hook")
					note.Set(c, "noted")
					return nil
				}}},
				stages.Finally: {{ID: "t/finally", Fn: func(c *flows.Context) error {
					rec.add("finally")
					return nil
				}}},
			}}
			out, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: steps})
			if got := rec.String(); got != tt.wantTrace {
				t.Errorf("trace:\n got %s\nwant %s", got, tt.wantTrace)
			}
			if tt.wantCode != 0 {
				var fe *flows.Error
				if !errors.As(err, &fe) || fe.Code != tt.wantCode || fe.Step != "finish" {
					t.Fatalf("err = %v, want code %v in step finish", err, tt.wantCode)
				}
				return
			}
			if err != nil || out != tt.wantOut {
				t.Errorf("Run = (%v, %v), want (%v, nil)", out, err, tt.wantOut)
			}
		})
	}
}
