package framework_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// recordingPlugin registers, at Attach, one hook per flow in flowsToHook
// (beforeExecute) that records its label; it can also provide a value.
type recordingPlugin struct {
	name    string
	rec     *recorder
	provide any
}

func (p *recordingPlugin) Name() string { return p.name }

func (p *recordingPlugin) Attach(pc *framework.PluginContext) error {
	if p.provide != nil {
		if err := pc.Provide(p.provide); err != nil {
			return err
		}
	}
	return pc.Hook(labelHooks(p.rec, "plugin:"+p.name)...)
}

// labelHooks returns hooks on the beforeExecute stage of tools:call-tool,
// prompts:get-prompt and completion:complete that record label.
func labelHooks(rec *recorder, label string) []flows.Hook {
	var hooks []flows.Hook
	for _, f := range []flows.ID{flows.ToolsCallTool, flows.PromptsGetPrompt, flows.CompletionComplete, flows.ToolsListTools} {
		hooks = append(hooks, flows.Hook{Flow: f, Stage: stages.BeforeExecute, Name: "label", Fn: func(c *flows.Context) error {
			rec.add("%s", label)
			return nil
		}})
	}
	return hooks
}

// greeting is a dependency provided through dig.
type greeting struct{ word string }

// greetTool is a tool type built by a constructor with a dependency.
type greetTool struct{ g *greeting }

var greetToolBuilt atomic.Int32

func newGreetTool(g *greeting) *greetTool {
	greetToolBuilt.Add(1)
	return &greetTool{g: g}
}

func (t *greetTool) Execute(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
	return echoOut{Echo: t.g.word + ", " + in.Text}, nil
}

// TestAppsFilterHooksByOwner checks owner filtering over MCP: an app's hooks
// and its plugins' hooks run for that app's entities only; the server's
// hooks and plugins run for every entity; list flows have no entity and run
// every owner's hooks.
func TestAppsFilterHooksByOwner(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	srv := framework.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	a, err := srv.App("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.App("b")
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name string) func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) {
		return func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut{Echo: name + ":" + in.Text}, nil
		}
	}
	prompt := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
	}
	err = errors.Join(
		srv.Hook(labelHooks(rec, "server")...),
		a.Hook(labelHooks(rec, "app:a")...),
		b.Hook(labelHooks(rec, "app:b")...),
		a.Use(&recordingPlugin{name: "only-a", rec: rec}),
		srv.Use(&recordingPlugin{name: "everywhere", rec: rec}),
		framework.AddToolFunc(a, &mcp.Tool{Name: "a_tool"}, tool("a")),
		framework.AddToolFunc(b, &mcp.Tool{Name: "b_tool"}, tool("b")),
		framework.AddPromptFunc(a, &mcp.Prompt{Name: "a_prompt"}, prompt),
		framework.AddPromptFunc(b, &mcp.Prompt{Name: "b_prompt"}, prompt),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a_tool", "b_tool"} {
		info, ok := srv.Tool(name)
		if !ok || info.App.Name() != name[:1] {
			t.Errorf("Tool(%q) = %+v, %v", name, info, ok)
		}
	}
	cs := inMemory("")(t, srv, nil)

	// Equal priorities run in registration order: the server's and the
	// apps' hooks were registered when added, the plugins' at Start in the
	// order they were attached.
	cases := []struct {
		name string
		do   func() error
		want []string
	}{
		{"call a_tool", func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "a_tool", Arguments: map[string]any{"text": "x"}})
			if err == nil && textOf(t, res) != `{"echo":"a:x"}` {
				err = errors.New("wrong result " + textOf(t, res))
			}
			return err
		}, []string{"server", "app:a", "plugin:only-a", "plugin:everywhere"}},
		{"call b_tool", func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "b_tool", Arguments: map[string]any{"text": "x"}})
			if err == nil && textOf(t, res) != `{"echo":"b:x"}` {
				err = errors.New("wrong result " + textOf(t, res))
			}
			return err
		}, []string{"server", "app:b", "plugin:everywhere"}},
		{"get a_prompt", func() error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "a_prompt"})
			return err
		}, []string{"server", "app:a", "plugin:only-a", "plugin:everywhere"}},
		{"get b_prompt", func() error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "b_prompt"})
			return err
		}, []string{"server", "app:b", "plugin:everywhere"}},
		{"complete a_prompt", func() error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "a_prompt"}, Argument: mcp.CompleteParamsArgument{Name: "x"}})
			return err
		}, []string{"server", "app:a", "plugin:only-a", "plugin:everywhere"}},
		{"complete b_prompt", func() error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "b_prompt"}, Argument: mcp.CompleteParamsArgument{Name: "x"}})
			return err
		}, []string{"server", "app:b", "plugin:everywhere"}},
		{"list tools (no entity: every owner)", func() error {
			_, err := cs.ListTools(ctx, nil)
			return err
		}, []string{"server", "app:a", "app:b", "plugin:only-a", "plugin:everywhere"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec.take()
			if err := c.do(); err != nil {
				t.Fatal(err)
			}
			if got := rec.take(); !equal(got, c.want) {
				t.Errorf("hooks ran: %v, want %v", got, c.want)
			}
		})
	}
}

// TestEntitiesThroughDig checks that entity constructors get their
// dependencies from the scope's dig container, once, at Start.
func TestEntitiesThroughDig(t *testing.T) {
	ctx := context.Background()
	greetToolBuilt.Store(0)
	srv := framework.NewServer(&mcp.Implementation{Name: "dig", Version: "1"}, nil)
	app, err := srv.App("tools")
	if err != nil {
		t.Fatal(err)
	}
	def := framework.Tool[*greetTool, echoIn, echoOut]{
		Tool:    &mcp.Tool{Name: "greet_server"},
		New:     newGreetTool,
		Execute: (*greetTool).Execute,
	}
	err = errors.Join(
		srv.Provide(func() *greeting { return &greeting{word: "Hello"} }),
		framework.AddTool(srv, def),
		// An app's container sees the server's providers.
		framework.AddTool(app, framework.Tool[*greetTool, echoIn, echoOut]{Tool: &mcp.Tool{Name: "greet_app"}, New: newGreetTool, Execute: (*greetTool).Execute}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	for range 3 {
		for _, name := range []string{"greet_server", "greet_app"} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "Ada"}})
			if err != nil || res.IsError || textOf(t, res) != `{"echo":"Hello, Ada"}` {
				t.Fatalf("%s: res=%+v err=%v", name, res, err)
			}
		}
	}
	if n := greetToolBuilt.Load(); n != 2 {
		t.Errorf("constructor ran %d times for 2 tools and 6 calls, want 2 (once per tool, at Start)", n)
	}
}

// TestPluginProvidesDependency checks that a plugin's provider is visible to
// the entities of the scope it is attached to.
func TestPluginProvidesDependency(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "dig", Version: "1"}, nil)
	err := errors.Join(
		srv.Use(&recordingPlugin{name: "greeter", rec: &recorder{}, provide: func() *greeting { return &greeting{word: "Hi"} }}),
		framework.AddTool(srv, framework.Tool[*greetTool, echoIn, echoOut]{Tool: &mcp.Tool{Name: "greet"}, New: newGreetTool, Execute: (*greetTool).Execute}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"text": "Bo"}})
	if err != nil || textOf(t, res) != `{"echo":"Hi, Bo"}` {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

type failingTool struct{}

func TestStartFailures(t *testing.T) {
	exec := func(*failingTool, context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) {
		return echoOut{}, nil
	}
	cases := []struct {
		name  string
		setup func(srv *framework.Server) error
		want  []string // substrings of Start's error
	}{
		{"constructor error", func(srv *framework.Server) error {
			return framework.AddTool(srv, framework.Tool[*failingTool, echoIn, echoOut]{
				Tool: &mcp.Tool{Name: "db_tool"}, Execute: exec,
				New: func() (*failingTool, error) { return nil, errors.New("no database") },
			})
		}, []string{"tool db_tool", "no database"}},
		{"missing dependency", func(srv *framework.Server) error {
			return framework.AddTool(srv, framework.Tool[*greetTool, echoIn, echoOut]{
				Tool: &mcp.Tool{Name: "lonely"}, New: newGreetTool, Execute: (*greetTool).Execute,
			})
		}, []string{"tool lonely", "greeting"}},
		{"constructor of the wrong type", func(srv *framework.Server) error {
			return framework.AddTool(srv, framework.Tool[*failingTool, echoIn, echoOut]{
				Tool: &mcp.Tool{Name: "odd"}, Execute: exec, New: func() string { return "" },
			})
		}, []string{"tool odd", "constructor"}},
		{"duplicate tool names", func(srv *framework.Server) error {
			return errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "dup"}, func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) { return echoOut{}, nil }),
				framework.AddToolFunc(srv, &mcp.Tool{Name: "dup"}, func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) { return echoOut{}, nil }),
			)
		}, []string{`tool "dup" is added twice`}},
		{"duplicate tool names across apps", func(srv *framework.Server) error {
			a, err := srv.App("a")
			if err != nil {
				return err
			}
			return errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "dup"}, func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) { return echoOut{}, nil }),
				framework.AddToolFunc(a, &mcp.Tool{Name: "dup"}, func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) { return echoOut{}, nil }),
			)
		}, []string{`tool "dup" is added twice`}},
		{"duplicate prompt names", func(srv *framework.Server) error {
			get := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
			return errors.Join(framework.AddPromptFunc(srv, &mcp.Prompt{Name: "p"}, get), framework.AddPromptFunc(srv, &mcp.Prompt{Name: "p"}, get))
		}, []string{`prompt "p" is added twice`}},
		{"plugin attach error", func(srv *framework.Server) error {
			return srv.Use(failingPlugin{})
		}, []string{`plugin "broken"`, "missing setting"}},
		{"tool input not an object", func(srv *framework.Server) error {
			return framework.AddToolFunc(srv, &mcp.Tool{Name: "scalar"}, func(context.Context, *mcp.CallToolRequest, string) (echoOut, error) { return echoOut{}, nil })
		}, []string{`tool "scalar"`, "object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "start", Version: "1"}, nil)
			if err := c.setup(srv); err != nil {
				t.Fatalf("setup: %v", err)
			}
			err := srv.Start()
			if err == nil {
				t.Fatal("Start succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Start error %q does not contain %q", err, w)
				}
			}
			// Start is idempotent, and serving reports the same error.
			if err2 := srv.Start(); err2 != err {
				t.Errorf("second Start = %v, want %v", err2, err)
			}
			st, _ := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(context.Background(), st, nil); err == nil {
				t.Error("Connect succeeded on a server that failed to start")
			}
		})
	}
}

type failingPlugin struct{}

func (failingPlugin) Name() string                          { return "broken" }
func (failingPlugin) Attach(*framework.PluginContext) error { return errors.New("missing setting") }

// TestAddAfterStart checks what can change once the server has started:
// entities can be added (and replace one of the same name, as in the SDK)
// and hooks can be added; apps and plugins cannot.
func TestAddAfterStart(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "late", Version: "1"}, nil)
	addEntities(t, srv)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.App("late"); err == nil {
		t.Error("App after Start succeeded")
	}
	if err := srv.Use(failingPlugin{}); err == nil {
		t.Error("Use after Start succeeded")
	}
	cs := inMemory("")(t, srv, nil)

	rec := &recorder{}
	late := func(word string) func(context.Context, *mcp.CallToolRequest, echoIn) (echoOut, error) {
		return func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut{Echo: word + " " + in.Text}, nil
		}
	}
	err := errors.Join(
		framework.AddToolFunc(srv, &mcp.Tool{Name: "late"}, late("late")),
		// A hook added after Start applies from the next request on.
		srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "late", Fn: func(c *flows.Context) error {
			rec.add("late hook %s", c.Entity().Name)
			return nil
		}}),
	)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late", Arguments: map[string]any{"text": "x"}})
	if err != nil || textOf(t, res) != `{"echo":"late x"}` {
		t.Fatalf("late tool: res=%+v err=%v", res, err)
	}
	if got := rec.take(); !equal(got, []string{"late hook late"}) {
		t.Errorf("late hook ran: %v", got)
	}
	// After Start, a tool of the same name replaces the old one.
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "late"}, late("replaced")); err != nil {
		t.Fatal(err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "late", Arguments: map[string]any{"text": "x"}})
	if err != nil || textOf(t, res) != `{"echo":"replaced x"}` {
		t.Fatalf("replaced tool: res=%+v err=%v", res, err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(tools.Tools, func(t *mcp.Tool) string { return t.Name }); !equal(got, []string{"echo", "late"}) {
		t.Errorf("tools = %v", got)
	}
}
