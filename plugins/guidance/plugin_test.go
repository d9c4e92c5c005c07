package guidance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// The shared checks, with session guidance and running and cancel
// guidance on every tool (which leave results as they are, as the checks
// want): the run contract holds, hooks are owned by the plugin,
// concurrent calls, apps.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return guidance.New(guidance.Config{Hooks: []guidance.Hook{
			inline("hello", guidance.TypeSession, guidance.Start, guidance.Should, "Hello."),
			inline("running", guidance.TypeAction, guidance.Running, guidance.May, "Wait."),
			inline("cancel", guidance.TypeAction, guidance.Cancel, guidance.May, "Retry."),
		}})
	}, nil)
}

func TestAttachErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  guidance.Config
		want []string
	}{
		{"never delivered", guidance.Config{Hooks: []guidance.Hook{
			inline("bye", guidance.TypeSession, guidance.End, guidance.May, "x"),
			{Tag: "p", Type: guidance.TypeAction, Lifecycle: guidance.Progress, Level: guidance.May, Content: "x", On: guidance.Prompt("review")},
		}}, []string{
			`hooks[0].lifecycle: a session hook without a target (on) is delivered at the session's start only, so its lifecycle must be start`,
			`hooks[1].lifecycle: a prompt's requests have no progress: its lifecycle must be start or end`,
		}},
		{"request", guidance.Config{Hooks: []guidance.Hook{{Tag: "r", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.May, Content: "x", RequestID: "42"}}},
			[]string{"hooks[0]: a hook tied to a request (RequestID) is added while the request runs, with Plugin.AddForRequest"}},
		{"role", guidance.Config{Role: "system"}, []string{`role: "system" is not an MCP role (want assistant or user)`}},
		{"app", guidance.Config{App: "my app"}, []string{`app: "my app" has ' ': want A-Z a-z 0-9 . _ -`}},
		{"storage", guidance.Config{Storage: []string{""}}, []string{`storage[0]: empty backend name`}},
		{"duplicate", guidance.Config{Hooks: []guidance.Hook{
			inline("a", guidance.TypeSession, guidance.Start, guidance.May, "x"),
			inline("a", guidance.TypeSession, guidance.Start, guidance.Must, "y"),
		}}, []string{"hooks[1]: hook hookflow:session:start:a is given twice (first at hooks[0]): change its tag, type or lifecycle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			if err := srv.Use(guidance.New(tt.cfg)); err != nil {
				t.Fatal(err)
			}
			err := srv.Start()
			if err == nil {
				t.Fatal("Start succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		p := guidance.New(guidance.Config{})
		a := framework.NewServer(&mcp.Implementation{Name: "a", Version: "1"}, nil)
		b := framework.NewServer(&mcp.Implementation{Name: "b", Version: "1"}, nil)
		if err := errors.Join(a.Use(p), b.Use(p), a.Start()); err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err == nil || !strings.Contains(err.Error(), "already attached") {
			t.Errorf("second attach: %v", err)
		}
	})
}

// TestRegistryChanges: hooks registered or removed after Start apply from
// the next delivery; Reload reads content files again.
func TestRegistryChanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tip.md")
	if err := os.WriteFile(file, []byte("First version."), 0o600); err != nil {
		t.Fatal(err)
	}
	p := guidance.New(guidance.Config{})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) { return nil, nil })
	})
	cs, _ := connect(t, srv, client{})
	if _, got := call(t, cs, &mcp.CallToolParams{Name: "t"}); len(got) != 0 {
		t.Fatalf("guidance before any hook: %q", got)
	}
	tip := guidance.Hook{Tag: "tip", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.May, File: file}
	if err := p.Registry().Register(tip); err != nil {
		t.Fatal(err)
	}
	if _, got := call(t, cs, &mcp.CallToolParams{Name: "t"}); len(got) != 1 || !strings.HasSuffix(got[0], "First version.") {
		t.Errorf("after Register: %q", got)
	}
	if err := os.WriteFile(file, []byte("Second version."), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, got := call(t, cs, &mcp.CallToolParams{Name: "t"}); len(got) != 1 || !strings.HasSuffix(got[0], "First version.") {
		t.Errorf("cached: %q", got)
	}
	p.Reload()
	if _, got := call(t, cs, &mcp.CallToolParams{Name: "t"}); len(got) != 1 || !strings.HasSuffix(got[0], "Second version.") {
		t.Errorf("after Reload: %q", got)
	}
	if !p.Registry().Unregister("hookflow:action:end:tip") {
		t.Fatal("Unregister found nothing")
	}
	if _, got := call(t, cs, &mcp.CallToolParams{Name: "t"}); len(got) != 0 {
		t.Errorf("after Unregister: %q", got)
	}
}

func TestRegistry(t *testing.T) {
	reg, err := guidance.NewRegistry("app")
	if err != nil {
		t.Fatal(err)
	}
	a := inline("a", guidance.TypeSession, guidance.Start, guidance.Must, "x")
	b := inline("b", guidance.TypeAction, guidance.End, guidance.May, "y")
	b.App = "other"
	c := inline("c", guidance.TypeAction, guidance.Start, guidance.Should, "z")
	c.RequestID = "r1"
	if err := reg.Register(a, b, c); err != nil {
		t.Fatal(err)
	}
	ids := func(hooks []guidance.Hook) []string {
		var out []string
		for _, h := range hooks {
			out = append(out, h.ID())
		}
		return out
	}
	tests := []struct {
		q    guidance.Query
		want []string
	}{
		{guidance.Query{}, []string{"app:session:start:a", "other:action:end:b", "app:action:start:c"}},
		{guidance.Query{Type: guidance.TypeAction}, []string{"other:action:end:b", "app:action:start:c"}},
		{guidance.Query{Lifecycle: guidance.Start}, []string{"app:session:start:a", "app:action:start:c"}},
		{guidance.Query{App: "app", Type: guidance.TypeAction}, []string{"app:action:start:c"}},
		{guidance.Query{Tag: "b"}, []string{"other:action:end:b"}},
		{guidance.Query{RequestID: "r1"}, []string{"app:action:start:c"}},
		{guidance.Query{RequestID: "r2"}, nil},
	}
	for _, tt := range tests {
		if got := ids(reg.Query(tt.q)); !slices.Equal(got, tt.want) {
			t.Errorf("Query(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
	if h, ok := reg.Get("other:action:end:b"); !ok || h.Content != "y" {
		t.Errorf("Get = %+v, %v", h, ok)
	}
	if reg.Has("app:action:end:b") || !reg.Has("app:session:start:a") || reg.Len() != 3 || len(reg.All()) != 3 {
		t.Error("Has, Len or All disagree with the registrations")
	}
	err = reg.Register(a)
	if flows.CodeOf(err) != flows.CodeDuplicate {
		t.Errorf("duplicate: %v", err)
	}
	if err := reg.Register(guidance.Hook{Tag: "x"}); flows.CodeOf(err) != flows.CodeInvalid {
		t.Errorf("invalid: %v", err)
	}
	if reg.Unregister("nope") || !reg.Unregister("app:session:start:a") || reg.Len() != 2 {
		t.Error("Unregister")
	}
	reg.Clear()
	if reg.Len() != 0 {
		t.Error("Clear left hooks")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		parse func(string) (any, error)
		in    string
		want  string // the value's String, or the error
	}{
		{func(s string) (any, error) { return guidance.ParseLevel(s) }, "MUST NOT", "MUST NOT"},
		{func(s string) (any, error) { return guidance.ParseLevel(s) }, "SHOULD-NOT", "SHOULD NOT"},
		{func(s string) (any, error) { return guidance.ParseLevel(s) }, "should", `unknown requirement level "should" (did you mean "SHOULD"?)`},
		{func(s string) (any, error) { return guidance.ParseLevel(s) }, "MUTS", `unknown requirement level "MUTS" (did you mean "MUST"?)`},
		{func(s string) (any, error) { return guidance.ParseType(s) }, "storage", "storage"},
		{func(s string) (any, error) { return guidance.ParseType(s) }, "sesion", `unknown type "sesion" (did you mean "session"?)`},
		{func(s string) (any, error) { return guidance.ParseLifecycle(s) }, "progress", "progress"},
		{func(s string) (any, error) { return guidance.ParseLifecycle(s) }, "finish", `unknown lifecycle "finish" (want start, running, progress, cancel, end)`},
		{func(s string) (any, error) { return guidance.ParseFeature(s) }, "roots", "roots"},
		{func(s string) (any, error) { return guidance.ParseFeature(s) }, "tools", `feature "tools" is the server's, not the client's: conditions test the client's features (sampling, elicitation, roots)`},
	}
	for _, tt := range tests {
		v, err := tt.parse(tt.in)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = v.(interface{ String() string }).String()
		}
		if got != tt.want {
			t.Errorf("parse %q = %q, want %q", tt.in, got, tt.want)
		}
	}
	var tg guidance.Target
	if err := tg.UnmarshalText([]byte("resource:file:///x")); err != nil || tg != guidance.Resource("file:///x") || tg.String() != "resource:file:///x" {
		t.Errorf("target %+v, %v", tg, err)
	}
	if err := tg.UnmarshalText([]byte("widget:x")); err == nil {
		t.Error("unknown target kind accepted")
	}
}

// TestLazyFlows: the hooks on what the server sends are registered once
// progress or running hooks exist, not before.
func TestLazyFlows(t *testing.T) {
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{inline("end", guidance.TypeAction, guidance.End, guidance.May, "x")}})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) { return nil, nil })
	})
	count := func() (n int) {
		for _, f := range []flows.ID{flows.NotificationsFromServer, flows.SamplingCreateMessage} {
			n += len(srv.Scope().FlowHooks(f))
		}
		return n
	}
	cs, _ := connect(t, srv, client{})
	call(t, cs, &mcp.CallToolParams{Name: "t"})
	if n := count(); n != 0 {
		t.Fatalf("%d hooks on the sent flows without progress or running guidance", n)
	}
	if err := p.Registry().Register(inline("p", guidance.TypeAction, guidance.Progress, guidance.May, "x"),
		inline("r", guidance.TypeAction, guidance.Running, guidance.May, "y")); err != nil {
		t.Fatal(err)
	}
	call(t, cs, &mcp.CallToolParams{Name: "t"})
	if n := count(); n != 2 {
		t.Errorf("%d hooks on the sent flows with progress and running guidance, want 2", n)
	}
}
