package scope_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

var hooksRun = flows.NewKey[int]("test.hooksRun")

func countHook(c *flows.Context) error {
	n, _ := hooksRun.Get(c)
	hooksRun.Set(c, n+1)
	return nil
}

// checkPlan checks what every plan must satisfy whatever the registry is
// doing: stages in run order, no hook twice.
func checkPlan(p *flows.Plan) error {
	seen := map[string]bool{}
	for st := range stages.Count {
		hs := p.Hooks(stages.Stage(st))
		for i, h := range hs {
			if seen[h.ID] {
				return fmt.Errorf("hook %s twice in the plan", h.ID)
			}
			seen[h.ID] = true
			if i > 0 && h.Priority > hs[i-1].Priority {
				return fmt.Errorf("%v: priority %d after %d", stages.Stage(st), h.Priority, hs[i-1].Priority)
			}
		}
	}
	return nil
}

// Register, Unregister, Load, Run and the registry's reads, all at once from
// many goroutines. Run with -race.
func TestConcurrentRegisterUnregisterLoadRun(t *testing.T) {
	const (
		writers      = 4
		writerIters  = 60
		runners      = 4
		runnerIters  = 300
		readers      = 2
		readersIters = 300
	)
	s := scope.New("srv")
	appA := must[*scope.Scope](t)(s.Child(scope.KindApp, "a"))
	appB := must[*scope.Scope](t)(s.Child(scope.KindApp, "b"))
	owners := []*scope.Scope{s, appA, appB, must[*scope.Scope](t)(appA.Child(scope.KindPlugin, "p"))}
	stable := must[[]string](t)(s.Register(
		flows.Hook{Flow: call, Stage: stages.BeforeValidation, Name: "stable-bv", Priority: 3, Fn: countHook},
		flows.Hook{Flow: call, Stage: stages.Finally, Name: "stable-f", Fn: countHook},
	))
	refA := s.Plan(call, ent(typeA), appA)
	refB := appB.Plan(call, ent(typeB), nil)
	refList := s.Plan(list, nil, nil)
	runner := flows.NewRunner(nil)

	var (
		wg       sync.WaitGroup
		failures = make(chan error, 64)
		alive    [writers][]string
		running  atomic.Bool
	)
	fail := func(err error) {
		select {
		case failures <- err:
		default:
		}
	}
	running.Store(true)

	for w := range writers {
		wg.Go(func() {
			owner := owners[w%len(owners)]
			var mine []string
			for i := range writerIters {
				st := stages.Stage(i % stages.Count)
				ids, err := owner.Register(
					flows.Hook{Flow: call, Stage: st, Name: fmt.Sprintf("w%d-%d", w, i), Priority: i % 3, Fn: countHook},
					flows.Hook{Flow: list, Stage: st, Name: fmt.Sprintf("w%d-%d", w, i), Priority: -(i % 2), Fn: countHook},
				)
				if err != nil {
					fail(err)
					return
				}
				embIDs, err := owner.RegisterEmbedded(typeA, flows.Hook{Flow: call, Stage: st, Name: fmt.Sprintf("w%d-%d", w, i), Priority: i % 4, Fn: countHook})
				if err != nil {
					fail(err)
					return
				}
				mine = append(mine, append(ids, embIDs...)...)
				if i%2 == 1 { // remove the oldest hook still alive
					if err := s.Unregister(mine[0]); err != nil {
						fail(err)
						return
					}
					mine = mine[1:]
				}
			}
			alive[w] = mine
		})
	}

	for range runners {
		wg.Go(func() {
			for i := range runnerIters {
				ref := []*scope.PlanRef{refA, refB, refList}[i%3]
				plan := ref.Load()
				if err := checkPlan(plan); err != nil {
					fail(err)
					return
				}
				want := plan.Len() - len(plan.Hooks(stages.OnError))
				// The plan's own hooks, then one that checks how many ran.
				checked := *plan
				checked.Stages[stages.Finally] = append(slices.Clip(plan.Stages[stages.Finally]), flows.PlanEntry{ID: "check", Fn: func(c *flows.Context) error {
					if got, _ := hooksRun.Get(c); got != want {
						fail(fmt.Errorf("run called %d hooks, its plan has %d outside onError", got, want))
					}
					return nil
				}})
				if _, err := runner.Run(context.Background(), flows.Run{Flow: plan.Flow, Plan: &checked}); err != nil {
					fail(err)
				}
			}
		})
	}

	for r := range readers {
		wg.Go(func() {
			for i := range readersIters {
				all := s.Hooks()
				for _, h := range []scope.Registration{all[0], all[len(all)-1]} {
					if got, ok := owners[r].Hook(h.ID()); ok && got.ID() != h.ID() {
						fail(fmt.Errorf("Hook(%q) returned %q", h.ID(), got.ID()))
					}
				}
				st := stages.Stage(i % stages.Count)
				fs := s.FlowStageHooks(call, st)
				for j := 1; j < len(fs); j++ {
					if fs[j].Priority > fs[j-1].Priority {
						fail(fmt.Errorf("FlowStageHooks out of order"))
					}
				}
				_ = s.FlowHooks(list)
				_ = s.TypeHooks(typeA)
				_ = s.FlowHooksForOwner(call, owners[i%len(owners)])
				if _, ok := s.Hook(stable[0]); !ok {
					fail(fmt.Errorf("stable hook vanished"))
				}
			}
		})
	}

	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	// The registry holds exactly the stable hooks and the ones still alive.
	want := slices.Clone(stable)
	for _, ids := range alive {
		want = append(want, ids...)
	}
	var got []string
	for _, h := range s.Hooks() {
		got = append(got, h.ID())
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("registry holds %d hooks, want %d", len(got), len(want))
	}
	// And a fresh load reflects it.
	var wantList int
	for _, id := range want {
		if h, _ := s.Hook(id); h.Flow == list {
			wantList++
		}
	}
	if got := refList.Load().Len(); got != wantList {
		t.Errorf("tools:list-tools plan has %d hooks, registry %d", got, wantList)
	}
}

// When goroutines race to register the same hook, exactly one wins.
func TestConcurrentDuplicateRegistration(t *testing.T) {
	const n = 16
	s := scope.New("srv")
	var wins, dups atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := s.Register(ext(call, be, "same", 0))
			switch flows.CodeOf(err) {
			case flows.CodeUnknown:
				if err == nil {
					wins.Add(1)
				}
			case flows.CodeDuplicate:
				dups.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || dups.Load() != n-1 || len(s.Hooks()) != 1 {
		t.Errorf("%d wins, %d duplicates, %d hooks; want 1, %d, 1", wins.Load(), dups.Load(), len(s.Hooks()), n-1)
	}
}
