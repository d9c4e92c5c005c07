package flows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// benchStages are the stages a successful run walks. BenchmarkRun spreads its
// hooks over them round-robin (hook i at benchStages[i%5]) so that every
// registered hook runs on every iteration; onError hooks would not run on a
// successful run and would flatter the numbers.
var benchStages = [...]stages.Stage{
	stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute, stages.AfterExecute, stages.Finally,
}

func nop(*flows.Context) error { return nil }

// nopSteps is a flow's validate and execute doing nothing, as a value that
// lives for the whole benchmark (as a real flow's Steps does).
type nopSteps struct{}

func (nopSteps) Validate(c *flows.Context) (any, json.RawMessage, error) { return c.Input(), nil, nil }
func (nopSteps) Execute(*flows.Context) (any, error)                     { return nil, nil }

// benchPlan returns a scope-built plan handle for tools:call-tool with n
// trivial external hooks registered on the root scope.
func benchPlan(tb testing.TB, n int) *scope.PlanRef {
	tb.Helper()
	s := scope.New("bench")
	hooks := make([]flows.Hook, n)
	for i := range hooks {
		hooks[i] = flows.Hook{
			Flow:  flows.ToolsCallTool,
			Stage: benchStages[i%len(benchStages)],
			Name:  fmt.Sprintf("h%d", i),
			Fn:    nop,
		}
	}
	if _, err := s.Register(hooks...); err != nil {
		tb.Fatal(err)
	}
	ref := s.Plan(flows.ToolsCallTool, nil, nil)
	if got := ref.Load().Len(); got != n {
		tb.Fatalf("plan has %d hooks, want %d", got, n)
	}
	return ref
}

// runOnce is one request's worth of runner work: load the compiled plan
// and run the flow (the runner takes and recycles the Context).
func runOnce(r *flows.Runner, ref *scope.PlanRef, ctx context.Context, steps flows.Steps) error {
	_, err := r.Run(ctx, flows.Run{Flow: flows.ToolsCallTool, Plan: ref.Load(), Steps: steps})
	return err
}

// BenchmarkRun measures a full run of tools:call-tool (plan load, context
// acquire/init/release, six stages, both steps) with n hooks that do nothing.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			ref := benchPlan(b, n)
			r := flows.NewRunner(nil)
			ctx := context.Background()
			var steps flows.Steps = nopSteps{}
			runtime.GC() // do not time the collection of the set-up's garbage
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := runOnce(r, ref, ctx, steps); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sink keeps the direct calls' results alive.
var sink error

// BenchmarkDirectCalls is the physical floor BenchmarkRun is compared with:
// ten plain calls through func values kept in a slice, so the compiler
// cannot inline them away.
func BenchmarkDirectCalls(b *testing.B) {
	b.Run("funcs=10", func(b *testing.B) {
		fns := make([]flows.HookFunc, 10)
		for i := range fns {
			fns[i] = nop
		}
		c := new(flows.Context)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			for _, fn := range fns {
				if err := fn(c); err != nil {
					sink = err
				}
			}
		}
	})
}

// BenchmarkRunCancelableContext is BenchmarkRun with a cancellable request
// context, as every real request has: the runner then checks the context
// before each hook (a non-blocking receive on its Done channel).
func BenchmarkRunCancelableContext(b *testing.B) {
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			ref := benchPlan(b, n)
			r := flows.NewRunner(nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var steps flows.Steps = nopSteps{}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := runOnce(r, ref, ctx, steps); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
