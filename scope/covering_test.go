package scope_test

import (
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// PlanCovering filters by owner even on a flow without an entity, where Plan
// runs every owner's hooks.
func TestPlanCovering(t *testing.T) {
	root := scope.New("srv")
	a, _ := root.Child(scope.KindApp, "a")
	b, _ := root.Child(scope.KindApp, "b")
	pa, _ := a.Child(scope.KindPlugin, "auth")
	nop := func(*flows.Context) error { return nil }
	for _, r := range []struct {
		s    *scope.Scope
		name string
	}{{root, "root"}, {a, "a"}, {b, "b"}, {pa, "a-plugin"}} {
		if _, err := r.s.Register(flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: r.name, Fn: nop}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(p *flows.Plan) []string {
		var out []string
		for _, h := range p.Hooks(stages.AfterExecute) {
			out = append(out, h.ID)
		}
		return out
	}
	tests := []struct {
		name string
		ref  *scope.PlanRef
		want []string
	}{
		{"Plan runs every owner", root.Plan(flows.ToolsListTools, nil, nil), []string{
			"srv/tools:list-tools/afterExecute/root", "srv/app:a/tools:list-tools/afterExecute/a",
			"srv/app:b/tools:list-tools/afterExecute/b", "srv/app:a/plugin:auth/tools:list-tools/afterExecute/a-plugin"}},
		{"covering app a", root.PlanCovering(flows.ToolsListTools, a), []string{
			"srv/tools:list-tools/afterExecute/root", "srv/app:a/tools:list-tools/afterExecute/a",
			"srv/app:a/plugin:auth/tools:list-tools/afterExecute/a-plugin"}},
		{"covering app b", root.PlanCovering(flows.ToolsListTools, b), []string{
			"srv/tools:list-tools/afterExecute/root", "srv/app:b/tools:list-tools/afterExecute/b"}},
		{"covering the root", root.PlanCovering(flows.ToolsListTools, nil), []string{
			"srv/tools:list-tools/afterExecute/root"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := names(tc.ref.Load())
			if len(got) != len(tc.want) {
				t.Fatalf("hooks = %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("hooks = %q, want %q", got, tc.want)
				}
			}
		})
	}
}
