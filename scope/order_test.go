package scope_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

const (
	call = flows.ToolsCallTool
	list = flows.ToolsListTools
	be   = stages.BeforeExecute
)

// Within a stage hooks run in descending priority; equal priorities run in
// registration order, whether they were registered in one batch or several.
func TestPriorityOrder(t *testing.T) {
	hooks := []flows.Hook{
		ext(call, be, "p0a", 0),
		ext(call, be, "p5a", 5),
		ext(call, be, "p0b", 0),
		ext(call, be, "p10", 10),
		ext(call, be, "p5b", 5),
		ext(call, be, "neg", -1),
		ext(call, be, "p0c", 0),
	}
	const want = "p10 p5a p5b p0a p0b p0c neg"
	tests := []struct {
		name    string
		batches [][]flows.Hook
	}{
		{"one batch", [][]flows.Hook{hooks}},
		{"one by one", [][]flows.Hook{{hooks[0]}, {hooks[1]}, {hooks[2]}, {hooks[3]}, {hooks[4]}, {hooks[5]}, {hooks[6]}}},
		{"uneven batches", [][]flows.Hook{hooks[:2], hooks[2:3], hooks[3:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scope.New("srv")
			for _, b := range tt.batches {
				must[[]string](t)(s.Register(b...))
			}
			if got := names(s.FlowStageHooks(call, be)); got != want {
				t.Errorf("FlowStageHooks = %s, want %s", got, want)
			}
			plan := s.Plan(call, nil, nil).Load()
			if got := planNames(plan); got != "beforeExecute: "+want {
				t.Errorf("plan = %s", got)
			}
			if got := runTrace(t, plan); got != want {
				t.Errorf("run order = %s, want %s", got, want)
			}
			for i, h := range plan.Hooks(be) {
				if i > 0 && h.Priority > plan.Hooks(be)[i-1].Priority {
					t.Errorf("priority %d after %d", h.Priority, plan.Hooks(be)[i-1].Priority)
				}
			}
		})
	}
}

// Embedded and external hooks merge by the same rule: priority first, then
// registration order, whoever registered them.
func TestEmbeddedExternalMerge(t *testing.T) {
	s := scope.New("srv")
	app := must[*scope.Scope](t)(s.Child(scope.KindApp, "a"))
	steps := []struct {
		typ  reflect.Type // nil: external
		by   *scope.Scope
		hook flows.Hook
	}{
		{nil, s, ext(call, be, "ext0a", 0)},
		{typeA, s, emb(call, be, "emb0a", 0)},
		{nil, app, ext(call, be, "ext5", 5)},
		{typeA, app, emb(call, be, "emb5", 5)},
		{nil, s, ext(call, be, "ext0b", 0)},
		{typeA, s, emb(call, be, "emb10", 10)},
		{typeA, s, emb(call, be, "emb0b", 0)},
		{nil, app, ext(call, be, "ext-1", -1)},
	}
	for _, st := range steps {
		must[[]string](t)(register(st.by, st.typ, st.hook))
	}
	const want = "emb10 ext5 emb5 ext0a emb0a ext0b emb0b ext-1"
	plan := s.Plan(call, ent(typeA), app).Load()
	if got := planNames(plan); got != "beforeExecute: "+want {
		t.Errorf("plan = %s, want %s", got, want)
	}
	if got := runTrace(t, plan); got != want {
		t.Errorf("run order = %s, want %s", got, want)
	}
	if got := names(s.FlowStageHooks(call, be)); got != want {
		t.Errorf("FlowStageHooks = %s, want %s", got, want)
	}
	// Without the type, only the external hooks remain, in the same order.
	if got := planNames(s.Plan(call, nil, app).Load()); got != "beforeExecute: ext5 ext0a ext0b ext-1" {
		t.Errorf("plan without type = %s", got)
	}
}

// ownerTree is a server with a plugin, two apps, and a plugin on app A; every
// scope registers one external hook on tools:call-tool and tools:list-tools,
// and each app's tool type has an embedded hook.
type ownerTree struct {
	srv, srvPlugin, appA, appB, aPlugin, aPluginPlugin *scope.Scope
}

func newOwnerTree(t *testing.T) *ownerTree {
	t.Helper()
	o := &ownerTree{srv: scope.New("srv")}
	o.srvPlugin = must[*scope.Scope](t)(o.srv.Child(scope.KindPlugin, "audit"))
	o.appA = must[*scope.Scope](t)(o.srv.Child(scope.KindApp, "a"))
	o.appB = must[*scope.Scope](t)(o.srv.Child(scope.KindApp, "b"))
	o.aPlugin = must[*scope.Scope](t)(o.appA.Child(scope.KindPlugin, "rate"))
	o.aPluginPlugin = must[*scope.Scope](t)(o.aPlugin.Child(scope.KindPlugin, "nested"))
	for _, x := range []struct {
		s    *scope.Scope
		name string
	}{{o.srv, "srv"}, {o.srvPlugin, "srvPlugin"}, {o.appA, "appA"}, {o.appB, "appB"}, {o.aPlugin, "aPlugin"}, {o.aPluginPlugin, "aPluginPlugin"}} {
		must[[]string](t)(x.s.Register(ext(call, be, x.name, 0), ext(list, be, x.name, 0)))
	}
	must[[]string](t)(o.appA.RegisterEmbedded(typeA, emb(call, be, "embA", 0)))
	must[[]string](t)(o.appB.RegisterEmbedded(typeB, emb(call, be, "embB", 0)))
	return o
}

// Server hooks run for every app's entities; an app's hooks, and its
// plugins', only for that app's entities; embedded hooks only for their own
// type; entity-less flows run the hooks of every owner.
func TestOwnerFiltering(t *testing.T) {
	o := newOwnerTree(t)
	tests := []struct {
		name   string
		from   *scope.Scope
		flow   flows.ID
		typ    any // reflect.Type or nil
		target *scope.Scope
		want   string
	}{
		{"app A's tool", o.srv, call, typeA, o.appA, "srv srvPlugin appA aPlugin aPluginPlugin embA"},
		{"app B's tool", o.srv, call, typeB, o.appB, "srv srvPlugin appB embB"},
		{"server's own tool", o.srv, call, typeRoot, o.srv, "srv srvPlugin"},
		{"server's tool, nil target", o.srv, call, typeRoot, nil, "srv srvPlugin"},
		{"app A's tool, Plan from app A", o.appA, call, typeA, nil, "srv srvPlugin appA aPlugin aPluginPlugin embA"},
		{"app B's tool, Plan from a plugin of A", o.aPlugin, call, typeB, o.appB, "srv srvPlugin appB embB"},
		{"A's type in app B: B's owners, A's embedded hooks", o.srv, call, typeA, o.appB, "srv srvPlugin appB embA"},
		{"B's type in app A", o.srv, call, typeB, o.appA, "srv srvPlugin appA aPlugin aPluginPlugin embB"},
		{"no type in app A", o.srv, call, nil, o.appA, "srv srvPlugin appA aPlugin aPluginPlugin"},
		{"entity of a plugin scope", o.srv, call, nil, o.aPlugin, "srv srvPlugin appA aPlugin aPluginPlugin"},
		{"entity-less flow from the root", o.srv, list, nil, nil, "srv srvPlugin appA appB aPlugin aPluginPlugin"},
		{"entity-less flow from app A", o.appA, list, nil, nil, "srv srvPlugin appA appB aPlugin aPluginPlugin"},
		{"entity-less flow with target B", o.srv, list, nil, o.appB, "srv srvPlugin appA appB aPlugin aPluginPlugin"},
		{"unknown flow", o.srv, flows.ID("tools:nope"), nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := tt.from.Plan(tt.flow, ent(typeOrNil(tt.typ)), tt.target)
			plan := ref.Load()
			if plan.Flow != tt.flow {
				t.Errorf("plan.Flow = %q", plan.Flow)
			}
			got := runTrace(t, plan)
			if tt.flow == flows.ID("tools:nope") {
				got = planNames(plan)
			}
			if got != tt.want {
				t.Errorf("hooks run:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCoversAndReach(t *testing.T) {
	o := newOwnerTree(t)
	tests := []struct {
		owner  *scope.Scope
		reach  *scope.Scope
		covers []*scope.Scope
		not    []*scope.Scope
	}{
		{o.srv, o.srv, []*scope.Scope{o.srv, o.appA, o.appB, o.aPlugin, o.srvPlugin}, nil},
		{o.srvPlugin, o.srv, []*scope.Scope{o.srv, o.appA, o.appB}, nil},
		{o.appA, o.appA, []*scope.Scope{o.appA, o.aPlugin}, []*scope.Scope{o.srv, o.appB, o.srvPlugin}},
		{o.aPlugin, o.appA, []*scope.Scope{o.appA, o.aPlugin}, []*scope.Scope{o.srv, o.appB}},
		{o.aPluginPlugin, o.appA, []*scope.Scope{o.appA}, []*scope.Scope{o.srv, o.appB}},
		{o.appB, o.appB, []*scope.Scope{o.appB}, []*scope.Scope{o.srv, o.appA, o.aPlugin}},
	}
	for _, tt := range tests {
		t.Run(tt.owner.Path(), func(t *testing.T) {
			if got := tt.owner.Reach(); got != tt.reach {
				t.Errorf("Reach() = %v, want %v", got, tt.reach)
			}
			for _, c := range tt.covers {
				if !tt.owner.Covers(c) {
					t.Errorf("%v does not cover %v", tt.owner, c)
				}
			}
			for _, c := range tt.not {
				if tt.owner.Covers(c) {
					t.Errorf("%v covers %v", tt.owner, c)
				}
			}
		})
	}
}

// Changes to the registry reach compiled plans on their next Load; a plan
// already loaded is immutable.
func TestUnregisterTakesEffectOnNextLoad(t *testing.T) {
	s := scope.New("srv")
	app := must[*scope.Scope](t)(s.Child(scope.KindApp, "a"))
	ids := must[[]string](t)(s.Register(ext(call, be, "a", 2), ext(call, be, "b", 1), ext(call, stages.Finally, "c", 0)))
	embIDs := must[[]string](t)(app.RegisterEmbedded(typeA, emb(call, be, "e", 1)))
	ref := s.Plan(call, ent(typeA), app)
	before := ref.Load()
	if got := planNames(before); got != "beforeExecute: a b e | finally: c" {
		t.Fatalf("plan = %s", got)
	}
	if ref.Load() != before {
		t.Error("Load recompiled an unchanged plan")
	}

	// Unregister works whoever owns the hook, from any scope of the tree.
	if err := app.Unregister(ids[1]); err != nil {
		t.Fatal(err)
	}
	after := ref.Load()
	if got := planNames(after); got != "beforeExecute: a e | finally: c" {
		t.Errorf("plan after Unregister = %s", got)
	}
	if got := planNames(before); got != "beforeExecute: a b e | finally: c" {
		t.Errorf("the old plan changed: %s", got)
	}
	if err := s.Unregister(embIDs[0]); err != nil {
		t.Fatal(err)
	}
	if got := planNames(ref.Load()); got != "beforeExecute: a | finally: c" {
		t.Errorf("plan after removing the embedded hook = %s", got)
	}
	if len(s.TypeHooks(typeA)) != 0 {
		t.Errorf("TypeHooks still lists %v", names(s.TypeHooks(typeA)))
	}

	// Unknown and already removed IDs are CodeNotFound.
	for _, id := range []string{ids[1], "nope"} {
		err := s.Unregister(id)
		if flows.CodeOf(err) != flows.CodeNotFound || !strings.Contains(err.Error(), fmt.Sprintf("%q", id)) {
			t.Errorf("Unregister(%q) = %v, want CodeNotFound naming it", id, err)
		}
	}
	if err := s.Unregister(""); flows.CodeOf(err) != flows.CodeNotFound {
		t.Errorf(`Unregister("") = %v, want CodeNotFound`, err)
	}
	if _, ok := s.Hook(ids[1]); ok {
		t.Error("Hook() still finds the removed hook")
	}

	// The same hook can be registered again; it then runs after the hooks of
	// its priority that stayed.
	must[[]string](t)(s.Register(ext(call, be, "b", 2)))
	if got := planNames(ref.Load()); got != "beforeExecute: a b | finally: c" {
		t.Errorf("plan after re-registering = %s", got)
	}
	if got := names(s.Hooks()); got != "a c b" {
		t.Errorf("Hooks() = %s, want registration order", got)
	}
}

// Registering new hooks is seen by plans on their next Load too.
func TestRegisterTakesEffectOnNextLoad(t *testing.T) {
	s := scope.New("srv")
	ref := s.Plan(call, nil, nil)
	if ref.Load().Len() != 0 {
		t.Fatal("plan of an empty registry is not empty")
	}
	must[[]string](t)(s.Register(ext(call, be, "a", 0)))
	if got := planNames(ref.Load()); got != "beforeExecute: a" {
		t.Errorf("plan = %s", got)
	}
}

// Plans for different targets are independent, and the same target's plan
// runs its hooks with the scope's own functions.
func TestPlanRunsRegisteredFunctions(t *testing.T) {
	s := scope.New("srv")
	var calls []string
	rec := func(name string) flows.HookFunc {
		return func(c *flows.Context) error { calls = append(calls, name+"@"+c.Stage().String()); return nil }
	}
	must[[]string](t)(s.Register(
		flows.Hook{Flow: call, Stage: stages.Finally, Name: "f", Fn: rec("f")},
		flows.Hook{Flow: call, Stage: stages.BeforeValidation, Name: "bv", Fn: rec("bv")},
		flows.Hook{Flow: call, Stage: stages.AfterExecute, Name: "ae", Fn: rec("ae")},
	))
	if _, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: call, Plan: s.Plan(call, nil, nil).Load()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, " "); got != "bv@beforeValidation ae@afterExecute f@finally" {
		t.Errorf("calls = %s", got)
	}
}
