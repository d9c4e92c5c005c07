package flows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

var (
	counterKey = flows.NewKey[int]("test.counter")
	startedKey = flows.NewKey[time.Time]("test.started")
	// sameNameKey has counterKey's name but is a different key.
	sameNameKey = flows.NewKey[int]("test.counter")
)

// Typed state is shared by the hooks of one run, across stages, and
// Get/Set/Delete behave as a typed map.
func TestStateSharedAcrossStages(t *testing.T) {
	type step struct {
		stage  stages.Stage
		do     func(c *flows.Context)
		want   int
		wantOK bool
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	steps := []step{
		{stages.BeforeValidation, func(c *flows.Context) {}, 0, false},
		{stages.BeforeValidation, func(c *flows.Context) { counterKey.Set(c, 1); startedKey.Set(c, start) }, 1, true},
		{stages.AfterValidation, func(c *flows.Context) { v, _ := counterKey.Get(c); counterKey.Set(c, v+1) }, 2, true},
		{stages.BeforeExecute, func(c *flows.Context) { counterKey.Delete(c) }, 0, false},
		{stages.BeforeExecute, func(c *flows.Context) { counterKey.Delete(c) }, 0, false}, // deleting twice is fine
		{stages.AfterExecute, func(c *flows.Context) { counterKey.Set(c, 10) }, 10, true},
		{stages.Finally, func(c *flows.Context) { counterKey.Set(c, 11) }, 11, true},
	}
	s := scope.New("srv")
	var problems []string
	hooks := make([]flows.Hook, len(steps))
	for i, st := range steps {
		hooks[i] = flows.Hook{Flow: flows.ToolsCallTool, Stage: st.stage, Name: string(rune('a' + i)), Fn: func(c *flows.Context) error {
			st.do(c)
			got, ok := counterKey.Get(c)
			if got != st.want || ok != st.wantOK {
				problems = append(problems, c.Stage().String()+": counter wrong")
				t.Errorf("step %d at %v: Get = %d, %v; want %d, %v", i, c.Stage(), got, ok, st.want, st.wantOK)
			}
			if v, ok := sameNameKey.Get(c); ok {
				t.Errorf("step %d: a different key with the same name sees %d", i, v)
			}
			if i > 0 {
				if ts, ok := startedKey.Get(c); !ok || !ts.Equal(start) {
					t.Errorf("step %d: started = %v, %v", i, ts, ok)
				}
			}
			return nil
		}}
	}
	if _, err := s.Register(hooks...); err != nil {
		t.Fatal(err)
	}
	if _, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: s.Plan(flows.ToolsCallTool, nil, nil).Load()}); err != nil {
		t.Fatal(err)
	}
	if counterKey.String() != "test.counter" {
		t.Errorf("Key.String() = %q", counterKey.String())
	}
}

// State does not leak from one run to the next, although the runner recycles
// its Contexts; concurrent runs have their own state.
func TestStateDoesNotLeakBetweenRuns(t *testing.T) {
	s := scope.New("srv")
	leaks := make(chan string, 100)
	_, err := s.Register(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "first", Fn: func(c *flows.Context) error {
			if v, ok := counterKey.Get(c); ok {
				leaks <- "counter leaked into a new run"
				_ = v
			}
			if _, ok := startedKey.Get(c); ok {
				leaks <- "started leaked into a new run"
			}
			if c.Output() != nil || c.Err() != nil || c.DecidedBy() != "" || c.Responded() || len(c.FinallyErrors()) != 0 {
				leaks <- "outcome leaked into a new run"
			}
			id := c.Input().(int)
			counterKey.Set(c, id)
			startedKey.Set(c, time.Unix(int64(id), 0))
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "check", Fn: func(c *flows.Context) error {
			if v, _ := counterKey.Get(c); v != c.Input().(int) {
				leaks <- "another run's state is visible"
			}
			counterKey.Delete(c)
			c.Respond(c.Input())
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "fail", Fn: func(c *flows.Context) error {
			return errHook // recorded in FinallyErrors, which must not leak either
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	plan := s.Plan(flows.ToolsCallTool, nil, nil).Load()
	r := flows.NewRunner(nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				id := g*1000 + i + 1
				out, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Input: id})
				if err != nil || out != id {
					leaks <- "wrong outcome"
				}
			}
		})
	}
	wg.Wait()
	close(leaks)
	for l := range leaks {
		t.Fatal(l)
	}
}

// A zero-value Context (not from a Runner) has empty state.
func TestStateOnZeroContext(t *testing.T) {
	var c flows.Context
	if _, ok := counterKey.Get(&c); ok {
		t.Fatal("zero Context has state")
	}
	counterKey.Set(&c, 3)
	counterKey.Set(&c, 4)
	if v, ok := counterKey.Get(&c); !ok || v != 4 {
		t.Errorf("Get = %d, %v; want 4, true", v, ok)
	}
	counterKey.Delete(&c)
	if _, ok := counterKey.Get(&c); ok {
		t.Error("Delete did not delete")
	}
}
