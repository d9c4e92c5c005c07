package scope_test

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// populated returns a scope tree with n hooks spread round-robin over every
// flow and stage, over three owners (the server and two apps), with a few
// priorities, half of the entity flows' hooks embedded in a tool type. It is
// registered in one batch per owner and kind, as start-up code does.
func populated(tb testing.TB, n int) *scope.Scope {
	tb.Helper()
	s := scope.New("srv")
	a := must[*scope.Scope](tb)(s.Child(scope.KindApp, "a"))
	b := must[*scope.Scope](tb)(s.Child(scope.KindApp, "b"))
	owners := []*scope.Scope{s, a, b}
	all := flows.All()
	type batch struct {
		owner *scope.Scope
		typ   reflect.Type
	}
	batches := map[batch][]flows.Hook{}
	for i := range n {
		f := all[i%len(all)]
		h := flows.Hook{
			Flow:     f.ID,
			Stage:    stages.Stage((i / len(all)) % stages.Count),
			Priority: i % 7,
			Name:     fmt.Sprintf("h%d", i),
			Fn:       nop,
		}
		key := batch{owners[i%len(owners)], nil}
		if f.Entity != flows.EntityNone && i%2 == 0 {
			key.typ = typeA
		}
		batches[key] = append(batches[key], h)
	}
	for k, hs := range batches {
		must[[]string](tb)(register(k.owner, k.typ, hs...))
	}
	if got := len(s.Hooks()); got != n {
		tb.Fatalf("registered %d hooks, want %d", got, n)
	}
	return s
}

var sinkHooks []scope.Registration

// BenchmarkFlowStageHooks measures the registry's flow+stage lookup, which
// must cost the same and allocate nothing whatever the registry's size.
func BenchmarkFlowStageHooks(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("registered=%d", n), func(b *testing.B) {
			s := populated(b, n)
			runtime.GC() // do not time the collection of the set-up's garbage
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				sinkHooks = s.FlowStageHooks(flows.ToolsCallTool, stages.BeforeExecute)
			}
		})
	}
}
