package scope_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// Entity types of the tests: each app has its tool type.
type (
	ToolA    struct{}
	ToolB    struct{}
	ToolRoot struct{}
)

var (
	typeA    = reflect.TypeFor[ToolA]()
	typeB    = reflect.TypeFor[ToolB]()
	typeRoot = reflect.TypeFor[ToolRoot]()
)

func nop(*flows.Context) error { return nil }

// ext is an external hook of flow at stage.
func ext(flow flows.ID, st stages.Stage, name string, prio int) flows.Hook {
	return flows.Hook{Flow: flow, Stage: st, Name: name, Priority: prio, Fn: nop}
}

// emb is a hook to register as an embedded hook (of the type given to
// RegisterEmbedded).
func emb(flow flows.ID, st stages.Stage, name string, prio int) flows.Hook {
	return flows.Hook{Flow: flow, Stage: st, Name: name, Priority: prio, Fn: nop}
}

// ent is an entity declared by the Go type t; nil for a nil t.
func ent(t reflect.Type) *flows.Entity {
	if t == nil {
		return nil
	}
	return &flows.Entity{Kind: flows.EntityTool, Name: t.Name(), Type: t}
}

// names returns the Name of each hook.
func names(hs []scope.Registration) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return strings.Join(out, " ")
}

// planNames returns the last part of each planned hook's ID, stage by stage,
// e.g. "beforeExecute: a b | finally: c".
func planNames(p *flows.Plan) string {
	var parts []string
	for st := range stages.Count {
		hs := p.Hooks(stages.Stage(st))
		if len(hs) == 0 {
			continue
		}
		ns := make([]string, len(hs))
		for i, h := range hs {
			ns[i] = h.ID[strings.LastIndex(h.ID, "/")+1:]
		}
		parts = append(parts, stages.Stage(st).String()+": "+strings.Join(ns, " "))
	}
	return strings.Join(parts, " | ")
}

// runTrace runs plan and returns the names of the hooks it called, in order.
// Every hook of plan is replaced by a recorder of its ID's last part.
func runTrace(t *testing.T, plan *flows.Plan) string {
	t.Helper()
	var trace []string
	p := flows.Plan{Flow: plan.Flow}
	for st := range stages.Count {
		for _, h := range plan.Hooks(stages.Stage(st)) {
			name := h.ID[strings.LastIndex(h.ID, "/")+1:]
			p.Stages[st] = append(p.Stages[st], flows.PlanEntry{ID: h.ID, Priority: h.Priority, Fn: func(*flows.Context) error {
				trace = append(trace, name)
				return nil
			}})
		}
	}
	if _, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: plan.Flow, Plan: &p}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(trace, " ")
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func typeOrNil(v any) reflect.Type {
	if v == nil {
		return nil
	}
	return v.(reflect.Type)
}

// register registers hooks with s: as embedded hooks of typ, or as external
// hooks when typ is nil.
func register(s *scope.Scope, typ reflect.Type, hooks ...flows.Hook) ([]string, error) {
	if typ != nil {
		return s.RegisterEmbedded(typ, hooks...)
	}
	return s.Register(hooks...)
}
