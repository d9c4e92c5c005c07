package framework_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

type nullIn struct {
	B    string   `json:"b"`
	List []string `json:"list"`
}

// TestValidationSaysNull checks that a null argument is named "null" in the
// text the model reads, not after a Go value.
func TestValidationSaysNull(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "null", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "t"}, func(ctx context.Context, req *mcp.CallToolRequest, in nullIn) (echoOut, error) {
		return echoOut{Echo: in.B}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	tests := []struct {
		args any
		want string
	}{
		{map[string]any{"b": nil}, `null has type "null"`},
		{map[string]any{"list": []any{"x", nil}}, `/properties/list/items: type: null has type "null"`},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(t, res)
		if !res.IsError || !strings.Contains(got, tt.want) || strings.Contains(got, "reflect") || strings.Contains(got, "<nil>") {
			t.Errorf("args %v: isError=%v text %q; want it to contain %q and no Go internals", tt.args, res.IsError, got, tt.want)
		}
	}
}

// weatherConfig is a dependency nobody provides in TestMissingDependency.
type weatherConfig struct{ unit string }

// weatherClient is built from a *weatherConfig.
type weatherClient struct{ cfg *weatherConfig }

type getWeather struct{ cfg *weatherConfig }

func newGetWeather(cfg *weatherConfig) *getWeather { return &getWeather{cfg: cfg} }

func newWeatherClient(cfg *weatherConfig) *weatherClient { return &weatherClient{cfg: cfg} }

func newGetWeatherWithClient(c *weatherClient) (*getWeather, error) {
	return &getWeather{cfg: c.cfg}, nil
}

var errNoKey = errors.New("no API key")

func newGetWeatherFailing(cfg *weatherConfig) (*getWeather, error) { return nil, errNoKey }

func newWeatherConfig() *weatherConfig { return &weatherConfig{unit: "C"} }

// TestMissingDependency checks that a constructor whose parameter nobody
// provides fails Start with an error naming the constructor, the missing
// type and what to do, and nothing of the reflection hookflow uses to call
// it.
func TestMissingDependency(t *testing.T) {
	tests := []struct {
		name string
		ctor any
		// extra provides more constructors before Start.
		extra []any
		want  []string
	}{
		{"direct", newGetWeather, nil,
			[]string{"tool weather", "framework_test.newGetWeather", "missing type: *framework_test.weatherConfig", "Provide"}},
		{"transitive", newGetWeatherWithClient, []any{newWeatherClient},
			[]string{"tool weather", "framework_test.newGetWeatherWithClient", "newWeatherClient", "missing type: *framework_test.weatherConfig", "Provide"}},
		// The constructor's own error is kept as it is, without the hint.
		{"failing", newGetWeatherFailing, []any{newWeatherConfig},
			[]string{"tool weather", "framework_test.newGetWeatherFailing", "no API key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "deps", Version: "1"}, nil)
			for _, c := range tt.extra {
				if err := srv.Provide(c); err != nil {
					t.Fatal(err)
				}
			}
			err := framework.AddTool(srv, framework.Tool[*getWeather, struct{}, echoOut]{
				Tool: &mcp.Tool{Name: "weather"},
				New:  tt.ctor,
				Execute: func(*getWeather, context.Context, *mcp.CallToolRequest, struct{}) (echoOut, error) {
					return echoOut{}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Start()
			if err == nil {
				t.Fatal("Start succeeded without the dependency")
			}
			if flows.CodeOf(err) != flows.CodeInvalid {
				t.Errorf("code = %v, want invalid", flows.CodeOf(err))
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if tt.name == "failing" {
				if !errors.Is(err, errNoKey) || strings.Contains(msg, "Provide") {
					t.Errorf("error %q: want it to wrap the constructor's error, without the Provide hint", msg)
				}
			}
			for _, bad := range []string{"reflect", "makeFuncStub", ".s:"} {
				if strings.Contains(msg, bad) {
					t.Errorf("error %q contains %q", msg, bad)
				}
			}
		})
	}
}

// TestCompletionsCapability checks that completions are advertised only by
// servers that have something to complete (a prompt or a resource), or
// whose options ask for them, on every transport.
func TestCompletionsCapability(t *testing.T) {
	onlyTool := func(t testing.TB, r framework.Registrar) {
		t.Helper()
		if err := framework.AddToolFunc(r, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut{Echo: in.Text}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		add  func(testing.TB, framework.Registrar)
		opts *framework.Options
		want bool
	}{
		{"tool only", onlyTool, nil, false},
		{"prompts and resources", addEntities, nil, true},
		{"tool only, asked for", onlyTool, &framework.Options{Capabilities: &mcp.ServerCapabilities{Completions: &mcp.CompletionCapabilities{}}}, true},
	}
	for _, tt := range tests {
		for _, tr := range transports {
			t.Run(tt.name+"/"+tr.name, func(t *testing.T) {
				srv := framework.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, tt.opts)
				tt.add(t, srv)
				cs := tr.connect(t, srv, nil)
				caps := cs.InitializeResult().Capabilities
				if got := caps.Completions != nil; got != tt.want {
					t.Errorf("completions advertised = %v, want %v (capabilities %+v)", got, tt.want, caps)
				}
				if caps.Tools == nil || caps.Logging == nil {
					t.Errorf("capabilities %+v lost tools or logging", caps)
				}
			})
		}
	}
}

// attachFunc is a plugin whose Attach is a function.
type attachFunc struct {
	name string
	fn   func(pc *framework.PluginContext) error
}

func (p attachFunc) Name() string                             { return p.name }
func (p attachFunc) Attach(pc *framework.PluginContext) error { return p.fn(pc) }

// TestAttachCallsBack checks that a plugin's Attach can call back into the
// server: entities, apps and plugins it adds are part of the same Start,
// and a nested Start is refused instead of deadlocking.
func TestAttachCallsBack(t *testing.T) {
	echo := func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	}
	tests := []struct {
		name string
		// attach is the plugin's Attach; the server must serve the tools
		// named in tools afterwards.
		attach func(t *testing.T, pc *framework.PluginContext) error
		tools  []string
	}{
		{"AddToolFunc", func(t *testing.T, pc *framework.PluginContext) error {
			return framework.AddToolFunc(pc.Server, &mcp.Tool{Name: "from-attach"}, echo)
		}, []string{"from-attach"}},
		{"App", func(t *testing.T, pc *framework.PluginContext) error {
			app, err := pc.Server.App("extra")
			if err != nil {
				return err
			}
			return framework.AddToolFunc(app, &mcp.Tool{Name: "in-app"}, echo)
		}, []string{"in-app"}},
		{"Use", func(t *testing.T, pc *framework.PluginContext) error {
			return pc.Server.Use(attachFunc{"nested", func(pc *framework.PluginContext) error {
				return framework.AddToolFunc(pc.Server, &mcp.Tool{Name: "from-nested"}, echo)
			}})
		}, []string{"from-nested"}},
		{"Start", func(t *testing.T, pc *framework.PluginContext) error {
			err := pc.Server.Start()
			if flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), "Attach") {
				t.Errorf("Start from Attach = %v, want a CodeInvalid error that says why", err)
			}
			return nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "callback", Version: "1"}, nil)
			if err := srv.Use(attachFunc{"cb", func(pc *framework.PluginContext) error { return tt.attach(t, pc) }}); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Start() }()
			if err := wait(t, done, "Start with a plugin calling back"); err != nil {
				t.Fatalf("Start: %v", err)
			}
			for _, name := range tt.tools {
				if _, ok := srv.Tool(name); !ok {
					t.Errorf("tool %q added from Attach is not registered", name)
				}
			}
			// After Start, Attach's callbacks are refused as for anyone.
			if err := srv.Use(attachFunc{"late", func(*framework.PluginContext) error { return nil }}); flows.CodeOf(err) != flows.CodeInvalid {
				t.Errorf("Use after Start = %v, want CodeInvalid", err)
			}
		})
	}
}
