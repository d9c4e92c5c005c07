package scope_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func namedHookFunc(*flows.Context) error { return nil }

func TestRegistrationErrors(t *testing.T) {
	tests := []struct {
		name     string
		typ      reflect.Type // embedded hooks of typ; nil: external
		setup    []flows.Hook // registered first, successfully
		hooks    []flows.Hook
		code     flows.Code
		contains []string
	}{
		{
			name:     "unknown flow",
			hooks:    []flows.Hook{ext("tools:call-tol", be, "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, `unknown flow "tools:call-tol" (did you mean "tools:call-tool"?)`},
		},
		{
			name:     "unknown flow without suggestion",
			hooks:    []flows.Hook{ext("billing:charge-card", be, "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, `unknown flow "billing:charge-card"`},
		},
		{
			name:     "empty flow",
			hooks:    []flows.Hook{ext("", be, "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, `unknown flow ""`},
		},
		{
			name:     "invalid stage",
			hooks:    []flows.Hook{ext(call, stages.Stage(6), "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "invalid stage 6"},
		},
		{
			name:     "priority out of range",
			hooks:    []flows.Hook{ext(call, be, "h", priority.Max+1)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "priority 2147483648 is out of range [-2147483648, 2147483647]"},
		},
		{
			name:     "nil function",
			hooks:    []flows.Hook{{Flow: call, Stage: be, Name: "h"}},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "nil hook function"},
		},
		{
			name:     "nil function, unnamed",
			hooks:    []flows.Hook{{Flow: call, Stage: be}},
			code:     flows.CodeInvalid,
			contains: []string{`hook "(unnamed)"`, "nil hook function"},
		},
		{
			name:     "typed hook of another flow",
			hooks:    []flows.Hook{withFlow(flows.On(be, func(flows.PromptGet) error { return nil }).Named("h"), call)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "takes flows.PromptGet, the view of prompts:get-prompt, but is registered for tools:call-tool"},
		},
		{
			name:     "list of no list result",
			hooks:    []flows.Hook{flows.On(be, func(flows.List[*mcp.Tool]) error { return nil }).Named("h")},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "flows.List[*mcp.Tool] is not the view of any flow"},
		},
		{
			name:     "embedded on an entity-less flow",
			typ:      typeA,
			hooks:    []flows.Hook{emb(list, be, "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{`hook "h"`, "flow tools:list-tools resolves no entity"},
		},
		{
			name:     "embedded on initialize",
			typ:      typeA,
			hooks:    []flows.Hook{emb(flows.SessionInitialize, stages.Finally, "h", 0)},
			code:     flows.CodeInvalid,
			contains: []string{"flow session:initialize resolves no entity"},
		},
		{
			name:     "duplicate within a batch",
			hooks:    []flows.Hook{ext(call, stages.Finally, "h", 0), ext(call, stages.Finally, "h", 5)},
			code:     flows.CodeDuplicate,
			contains: []string{`tools:call-tool finally: hook "srv/tools:call-tool/finally/h"`, "already registered", "distinct Name"},
		},
		{
			name:     "duplicate across calls",
			setup:    []flows.Hook{ext(call, be, "h", 0)},
			hooks:    []flows.Hook{ext(call, be, "other", 0), ext(call, be, "h", 1)},
			code:     flows.CodeDuplicate,
			contains: []string{`tools:call-tool beforeExecute: hook "srv/tools:call-tool/beforeExecute/h"`},
		},
		{
			name:     "duplicate unnamed hooks of the same function",
			hooks:    []flows.Hook{{Flow: call, Stage: be, Fn: namedHookFunc}, {Flow: call, Stage: be, Fn: namedHookFunc}},
			code:     flows.CodeDuplicate,
			contains: []string{`"srv/tools:call-tool/beforeExecute/github.com/hookflow/hookflow/scope_test.namedHookFunc"`},
		},
		{
			name:     "duplicate embedded",
			typ:      typeA,
			hooks:    []flows.Hook{emb(call, be, "h", 0), emb(call, be, "h", 0)},
			code:     flows.CodeDuplicate,
			contains: []string{`"github.com/hookflow/hookflow/scope_test.ToolA/tools:call-tool/beforeExecute/h"`},
		},
		{
			name:     "valid hooks before an invalid one",
			hooks:    []flows.Hook{ext(call, be, "ok1", 0), ext(call, stages.Finally, "ok2", 0), {Flow: call, Stage: be, Name: "bad"}},
			code:     flows.CodeInvalid,
			contains: []string{`hook "bad"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scope.New("srv")
			if len(tt.setup) > 0 {
				must[[]string](t)(register(s, tt.typ, tt.setup...))
			}
			before := s.Hooks()
			ref := s.Plan(call, ent(typeA), nil)
			plan := ref.Load()

			ids, err := register(s, tt.typ, tt.hooks...)
			if err == nil {
				t.Fatalf("Register succeeded with IDs %v", ids)
			}
			if ids != nil {
				t.Errorf("Register returned IDs %v with its error", ids)
			}
			var e *flows.Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Errorf("error = %#v, want a *flows.Error with %v", err, tt.code)
			}
			for _, want := range tt.contains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}

			// A failed batch registers nothing.
			if got := s.Hooks(); len(got) != len(before) {
				t.Errorf("Hooks() = %s after a failed Register, want %s", names(got), names(before))
			}
			if ref.Load() != plan {
				t.Error("a failed Register changed the registry: the plan was recompiled")
			}
			for _, h := range tt.hooks {
				if h.Flow.Valid() && h.Stage.Valid() {
					if got := s.FlowStageHooks(h.Flow, h.Stage); len(got) != countIn(before, h.Flow, h.Stage) {
						t.Errorf("FlowStageHooks(%s, %v) = %s after a failed Register", h.Flow, h.Stage, names(got))
					}
				}
			}
		})
	}
}

func countIn(hs []scope.Registration, f flows.ID, st stages.Stage) int {
	n := 0
	for _, h := range hs {
		if h.Flow == f && h.Stage == st {
			n++
		}
	}
	return n
}

// A batch that failed can be registered once fixed: nothing of it was kept.
func TestFailedBatchCanBeRetried(t *testing.T) {
	s := scope.New("srv")
	good := ext(call, be, "good", 0)
	if _, err := s.Register(good, flows.Hook{Flow: call, Stage: be, Name: "bad"}); err == nil {
		t.Fatal("Register accepted a nil function")
	}
	ids := must[[]string](t)(s.Register(good, ext(call, be, "bad", 0)))
	if len(ids) != 2 || len(s.Hooks()) != 2 {
		t.Errorf("IDs = %v, Hooks() = %s", ids, names(s.Hooks()))
	}
	// An empty batch is fine and registers nothing.
	if ids, err := s.Register(); err != nil || len(ids) != 0 {
		t.Errorf("Register() = %v, %v", ids, err)
	}
}

// Hook IDs are computed, readable and stable: "<owner>/<flow>/<stage>/<name>".
func TestHookIDs(t *testing.T) {
	build := func(t *testing.T) []string {
		s := scope.New("srv")
		app := must[*scope.Scope](t)(s.Child(scope.KindApp, "billing"))
		plugin := must[*scope.Scope](t)(app.Child(scope.KindPlugin, "audit"))
		rootPlugin := must[*scope.Scope](t)(s.Child(scope.KindPlugin, "auth"))
		var ids []string
		ids = append(ids, must[[]string](t)(s.Register(
			ext(call, be, "auth", 0),
			flows.Hook{Flow: call, Stage: be, Fn: namedHookFunc},
		))...)
		ids = append(ids, must[[]string](t)(app.Register(ext(call, stages.AfterExecute, "audit", 0)))...)
		ids = append(ids, must[[]string](t)(plugin.Register(ext(list, stages.Finally, "x", 0)))...)
		ids = append(ids, must[[]string](t)(rootPlugin.Register(ext(flows.SessionInitialize, stages.OnError, "y", 0)))...)
		ids = append(ids, must[[]string](t)(app.RegisterEmbedded(typeA, emb(call, stages.BeforeValidation, "normalize", 0)))...)
		ids = append(ids, must[[]string](t)(app.RegisterEmbedded(reflect.PointerTo(typeB), emb(flows.PromptsGetPrompt, stages.AfterValidation, "check", 0)))...)
		ids = append(ids, must[[]string](t)(app.RegisterEmbedded(reflect.TypeFor[int](), emb(flows.CompletionComplete, be, "builtin", 0)))...)
		return ids
	}
	want := []string{
		"srv/tools:call-tool/beforeExecute/auth",
		"srv/tools:call-tool/beforeExecute/github.com/hookflow/hookflow/scope_test.namedHookFunc",
		"srv/app:billing/tools:call-tool/afterExecute/audit",
		"srv/app:billing/plugin:audit/tools:list-tools/finally/x",
		"srv/plugin:auth/session:initialize/onError/y",
		"github.com/hookflow/hookflow/scope_test.ToolA/tools:call-tool/beforeValidation/normalize",
		"github.com/hookflow/hookflow/scope_test.ToolB/prompts:get-prompt/afterValidation/check",
		"int/completion:complete/beforeExecute/builtin",
	}
	first, second := build(t), build(t)
	if strings.Join(first, "\n") != strings.Join(want, "\n") {
		t.Errorf("IDs:\n got %s\nwant %s", strings.Join(first, "\n     "), strings.Join(want, "\n     "))
	}
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Error("the same registrations in a new scope got different IDs")
	}
	if (scope.Registration{}).ID() != "" {
		t.Error("a zero Registration has an ID")
	}
}

// The registry's read API: every index lists what it should, in run order.
func TestRegistryContents(t *testing.T) {
	s := scope.New("srv")
	app := must[*scope.Scope](t)(s.Child(scope.KindApp, "a"))
	plugin := must[*scope.Scope](t)(app.Child(scope.KindPlugin, "p"))
	fin := stages.Finally
	bv := stages.BeforeValidation
	must[[]string](t)(s.Register(ext(call, fin, "s1", 0), ext(call, be, "s2", 0), ext(list, be, "s3", 0)))
	must[[]string](t)(app.Register(ext(call, be, "a1", 5), ext(call, bv, "a2", -1)))
	must[[]string](t)(app.RegisterEmbedded(typeA, emb(call, be, "e1", 1), emb(flows.PromptsGetPrompt, bv, "e2", 0)))
	must[[]string](t)(plugin.Register(ext(call, be, "p1", 5), ext(list, fin, "p2", 0)))
	must[[]string](t)(s.RegisterEmbedded(typeB, emb(call, fin, "e3", 9)))
	must[[]string](t)(s.RegisterEmbedded(typeA, emb(call, bv, "e4", 0)))

	tests := []struct {
		name string
		got  []scope.Registration
		want string
	}{
		{"Hooks", s.Hooks(), "s1 s2 s3 a1 a2 e1 e2 p1 p2 e3 e4"},
		{"Hooks from a child", plugin.Hooks(), "s1 s2 s3 a1 a2 e1 e2 p1 p2 e3 e4"},
		{"FlowHooks call", s.FlowHooks(call), "e4 a2 a1 p1 e1 s2 e3 s1"},
		{"FlowHooks list", s.FlowHooks(list), "s3 p2"},
		{"FlowHooks get-prompt", s.FlowHooks(flows.PromptsGetPrompt), "e2"},
		{"FlowHooks initialize", s.FlowHooks(flows.SessionInitialize), ""},
		{"FlowHooks unknown", s.FlowHooks("nope"), ""},
		{"FlowStageHooks call beforeExecute", s.FlowStageHooks(call, be), "a1 p1 e1 s2"},
		{"FlowStageHooks call beforeValidation", s.FlowStageHooks(call, bv), "e4 a2"},
		{"FlowStageHooks call finally", s.FlowStageHooks(call, fin), "e3 s1"},
		{"FlowStageHooks call onError", s.FlowStageHooks(call, stages.OnError), ""},
		{"FlowStageHooks unknown flow", s.FlowStageHooks("nope", be), ""},
		{"FlowStageHooks invalid stage", s.FlowStageHooks(call, stages.Stage(6)), ""},
		{"FlowHooksForOwner srv call", s.FlowHooksForOwner(call, s), "s2 s1"},
		{"FlowHooksForOwner app call (not its plugin's, not embedded)", s.FlowHooksForOwner(call, app), "a2 a1"},
		{"FlowHooksForOwner plugin call", s.FlowHooksForOwner(call, plugin), "p1"},
		{"FlowHooksForOwner plugin list", app.FlowHooksForOwner(list, plugin), "p2"},
		{"FlowHooksForOwner app list", s.FlowHooksForOwner(list, app), ""},
		{"FlowHooksForOwner unknown flow", s.FlowHooksForOwner("nope", s), ""},
		{"FlowHooksForOwner foreign scope", s.FlowHooksForOwner(call, scope.New("other")), ""},
		{"TypeHooks A", s.TypeHooks(typeA), "e4 e1 e2"},
		{"TypeHooks B", s.TypeHooks(typeB), "e3"},
		{"TypeHooks *A (the same type as A)", s.TypeHooks(reflect.PointerTo(typeA)), "e4 e1 e2"},
		{"TypeHooks unknown", s.TypeHooks(typeRoot), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(tt.got); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}

	// Each listed hook knows its ID, owner and kind.
	owners := map[string]*scope.Scope{"s": s, "a": app, "p": plugin, "e": app}
	for _, h := range s.Hooks() {
		if h.Embedded() != strings.HasPrefix(h.Name, "e") {
			t.Errorf("%s: Embedded() = %v", h.Name, h.Embedded())
		}
		wantOwner := owners[h.Name[:1]]
		if h.Name == "e3" || h.Name == "e4" {
			wantOwner = s
		}
		if h.Owner() != wantOwner {
			t.Errorf("%s: Owner() = %v, want %v", h.Name, h.Owner(), wantOwner)
		}
		got, ok := app.Hook(h.ID())
		if !ok || got.ID() != h.ID() || got.Name != h.Name || got.Priority != h.Priority || got.Fn == nil {
			t.Errorf("Hook(%q) = %+v, %v", h.ID(), got, ok)
		}
	}
	if _, ok := s.Hook("srv/tools:call-tool/beforeExecute/nope"); ok {
		t.Error("Hook() found a hook that does not exist")
	}
}

func TestScopeTree(t *testing.T) {
	root := scope.New("")
	if root.Name() != "server" || root.Path() != "server" || root.Kind() != scope.KindRoot || root.Parent() != nil || root.Root() != root {
		t.Errorf("New(\"\") = %v %v %v", root.Name(), root.Path(), root.Kind())
	}
	app := must[*scope.Scope](t)(root.Child(scope.KindApp, "billing"))
	plugin := must[*scope.Scope](t)(app.Child(scope.KindPlugin, "audit"))
	tests := []struct {
		s          *scope.Scope
		name, path string
		kind       scope.Kind
		parent     *scope.Scope
	}{
		{app, "billing", "server/app:billing", scope.KindApp, root},
		{plugin, "audit", "server/app:billing/plugin:audit", scope.KindPlugin, app},
	}
	for _, tt := range tests {
		if tt.s.Name() != tt.name || tt.s.Path() != tt.path || tt.s.String() != tt.path || tt.s.Kind() != tt.kind || tt.s.Parent() != tt.parent || tt.s.Root() != root {
			t.Errorf("%v: name %q kind %v parent %v root %v", tt.s, tt.s.Name(), tt.s.Kind(), tt.s.Parent(), tt.s.Root())
		}
	}

	kinds := []struct {
		k    scope.Kind
		want string
	}{{scope.KindRoot, "root"}, {scope.KindApp, "app"}, {scope.KindPlugin, "plugin"}, {scope.Kind(7), "Kind(7)"}}
	for _, k := range kinds {
		if k.k.String() != k.want {
			t.Errorf("Kind(%d).String() = %q", k.k, k.k.String())
		}
	}

	bad := []struct {
		kind scope.Kind
		name string
	}{{scope.KindRoot, "x"}, {scope.KindApp, ""}, {scope.KindApp, "a/b"}, {scope.KindPlugin, "a b"}}
	for _, b := range bad {
		if c, err := root.Child(b.kind, b.name); err == nil || c != nil || flows.CodeOf(err) != flows.CodeInvalid {
			t.Errorf("Child(%v, %q) = %v, %v; want a CodeInvalid error", b.kind, b.name, c, err)
		}
	}
}

// withFlow returns h registered for flow, whatever its view says.
func withFlow(h flows.Hook, flow flows.ID) flows.Hook {
	h.Flow = flow
	return h
}

// Embedded hooks of *T and of T are one type's: they run for entities
// declared as either, and their IDs collide.
func TestEmbeddedPointerAndValue(t *testing.T) {
	s := scope.New("srv")
	must[[]string](t)(s.RegisterEmbedded(reflect.PointerTo(typeA), emb(call, be, "ptr", 0)))
	must[[]string](t)(s.RegisterEmbedded(typeA, emb(call, be, "val", 0)))
	for _, typ := range []reflect.Type{typeA, reflect.PointerTo(typeA)} {
		if got := planNames(s.Plan(call, ent(typ), nil).Load()); got != "beforeExecute: ptr val" {
			t.Errorf("plan for %v = %s, want both hooks", typ, got)
		}
		if got := names(s.TypeHooks(typ)); got != "ptr val" {
			t.Errorf("TypeHooks(%v) = %s", typ, got)
		}
	}
	if _, err := s.RegisterEmbedded(reflect.PointerTo(typeA), emb(call, be, "val", 0)); flows.CodeOf(err) != flows.CodeDuplicate {
		t.Errorf("registering val for *T after T: %v, want a duplicate", err)
	}
	// As for Register, the error names the hook it refuses.
	if _, err := s.RegisterEmbedded(nil, emb(call, be, "x", 0)); flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), `hook "x"`) {
		t.Errorf("RegisterEmbedded(nil) = %v, want invalid, naming hook \"x\"", err)
	}
}
