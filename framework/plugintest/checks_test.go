package plugintest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// recT records the failures of a check instead of failing the test.
type recT struct {
	*testing.T
	mu   sync.Mutex
	msgs []string
}

func (r *recT) Helper() {}

func (r *recT) add(s string) {
	r.mu.Lock()
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
}

func (r *recT) Errorf(format string, args ...any) { r.add(fmt.Sprintf(format, args...)) }
func (r *recT) Error(args ...any)                 { r.add(fmt.Sprint(args...)) }
func (r *recT) Fatalf(format string, args ...any) {
	r.add(fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *recT) Fatal(args ...any)   { r.add(fmt.Sprint(args...)); runtime.Goexit() }
func (r *recT) Logf(string, ...any) {}

// runCheck runs one check against newPlugin and returns its failures.
func runCheck(t *testing.T, name string, newPlugin func(testing.TB) framework.Plugin, blocked ...Call) []string {
	r := &recT{T: t}
	o := &RunOptions{Calls: 40, Sessions: 3, Blocked: blocked}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, c := range checks {
			if c.name == name {
				c.fn(r, newPlugin, o)
				return
			}
		}
		r.Errorf("no check %q", name)
	}()
	<-done
	return r.msgs
}

func hook(flow flows.ID, stage stages.Stage, name string, fn flows.HookFunc) flows.Hook {
	return flows.Hook{Flow: flow, Stage: stage, Name: name, Fn: fn}
}

var nop = func(*flows.Context) error { return nil }

func blockSecret(c *flows.Context) error {
	if strings.Contains(string(c.Arguments()), "secret") {
		return c.Abort(&flows.Error{Code: flows.CodeNotAllowed, Msg: "blocked"})
	}
	return nil
}

// secretCall is a call that blocker blocks.
var secretCall = Call{Tool: ToolEcho, Args: Text{Text: "a secret"}}

// The plugins below each break one promise.
var (
	// good keeps every promise.
	good = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("good", func(p *framework.PluginContext) error {
			var hooks []flows.Hook
			for _, st := range stages.All() {
				hooks = append(hooks, hook(flows.ToolsCallTool, st, "nop", nop))
			}
			return p.Hook(hooks...)
		})
	}
	// squatter registers on the server's scope instead of its own.
	squatter = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("squatter", func(p *framework.PluginContext) error {
			return p.Server.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "nop", nop))
		})
	}
	// liar answers every call early with the same text.
	liar = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("liar", func(p *framework.PluginContext) error {
			return p.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "answer", func(c *flows.Context) error {
				c.Respond(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "always this"}}})
				return nil
			}))
		})
	}
	// sticky remembers the first echo output and returns it to everyone: the
	// cross-talk a shared cache value causes.
	sticky = func(testing.TB) framework.Plugin {
		var mu sync.Mutex
		var first any
		return framework.NewPlugin("sticky", func(p *framework.PluginContext) error {
			return p.Hook(hook(flows.ToolsCallTool, stages.AfterExecute, "remember", func(c *flows.Context) error {
				if c.Entity().Name != ToolEcho {
					return nil
				}
				mu.Lock()
				defer mu.Unlock()
				if first == nil {
					first = c.Output()
				} else {
					c.SetOutput(first)
				}
				return nil
			}))
		})
	}
	// leaky registers its hooks on the server even when attached to an app.
	leaky = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("leaky", func(p *framework.PluginContext) error {
			if p.App != nil {
				return p.Server.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "leak", nop))
			}
			return p.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "nop", nop))
		})
	}
	// blocker blocks the calls whose arguments hold "secret".
	blocker = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("blocker", func(p *framework.PluginContext) error {
			return p.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "block", blockSecret))
		})
	}
	// lateBlocker blocks them too, but after the tool ran.
	lateBlocker = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("late", func(p *framework.PluginContext) error {
			return p.Hook(hook(flows.ToolsCallTool, stages.AfterExecute, "block", blockSecret))
		})
	}
	// blabber shows every failure's message to the client, panics included.
	blabber = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("blabber", func(p *framework.PluginContext) error {
			return p.Hook(hook(flows.ToolsCallTool, stages.OnError, "tell", func(c *flows.Context) error {
				c.Respond(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: c.Err().Error()}}})
				return nil
			}))
		})
	}
	// failer fails at Attach.
	failer = func(testing.TB) framework.Plugin {
		return framework.NewPlugin("failer", func(p *framework.PluginContext) error {
			return fmt.Errorf("Config.Size: must be positive")
		})
	}
)

func TestRunPassesAGoodPlugin(t *testing.T) {
	Run(t, good, &RunOptions{Calls: 40, Sessions: 3})
}

func TestChecksCatchBadPlugins(t *testing.T) {
	tests := []struct {
		check   string
		plugin  func(testing.TB) framework.Plugin
		want    string // in one of the failures; "" means no failure
		blocked []Call
	}{
		{"Owner", good, "", nil},
		{"Owner", squatter, "not by the plugin's scope", nil},
		{"Owner", failer, "Config.Size", nil},
		{"RunContract", good, "", nil},
		{"RunContract", liar, `want success with "{\"text\":\"hello\"}"`, nil},
		{"RunContract", sticky, `want success with "{\"text\":\"other\"}"`, nil},
		{"Concurrent", good, "", nil},
		{"Concurrent", sticky, "want success", nil},
		{"App", good, "", nil},
		{"App", leaky, "ran [plugintest/tools:call-tool/beforeExecute/leak] for app b", nil},
		{"Blocked", good, "", nil},
		{"Blocked", blocker, "", []Call{secretCall}},
		{"Blocked", good, "want it blocked", []Call{secretCall}},
		{"Blocked", lateBlocker, "the tool ran", []Call{secretCall}},
		{"Blocked", squatter, `decided by ""`, []Call{secretCall}},
		{"PanicHidden", good, "", nil},
		{"PanicHidden", blocker, "", nil},
		{"PanicHidden", blabber, "the client sees the panic's message", nil},
	}
	for _, tt := range tests {
		t.Run(tt.check+"/"+tt.plugin(t).Name(), func(t *testing.T) {
			msgs := runCheck(t, tt.check, tt.plugin, tt.blocked...)
			if tt.want == "" {
				if len(msgs) > 0 {
					t.Fatalf("failures: %q", msgs)
				}
				return
			}
			for _, m := range msgs {
				if strings.Contains(m, tt.want) {
					return
				}
			}
			t.Fatalf("no failure mentions %q; failures: %q", tt.want, msgs)
		})
	}
}

func TestHarnessToken(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	who := framework.NewPlugin("who", func(p *framework.PluginContext) error {
		return p.Hook(hook(flows.ToolsCallTool, stages.BeforeExecute, "who", func(c *flows.Context) error {
			mu.Lock()
			seen = append(seen, c.Request().Principal())
			mu.Unlock()
			return nil
		}))
	})
	h := New(t, &Options{Plugins: []framework.Plugin{who}, Token: &auth.TokenInfo{UserID: "alice", Scopes: []string{"read"}}})
	h.Call(ToolEcho, Text{Text: "a"}).WantText(EchoText("a"))
	h.Connect(&SessionOptions{Token: &auth.TokenInfo{UserID: "bob"}}).Call(ToolEcho, Text{Text: "b"}).WantText(EchoText("b"))
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"alice", "bob"}; !slices.Equal(seen, want) {
		t.Errorf("principals %q, want %q", seen, want)
	}
}

func TestHarnessStartError(t *testing.T) {
	h := New(t, &Options{Plugins: []framework.Plugin{failer(t)}})
	err := h.Start()
	if err == nil || !strings.Contains(err.Error(), `plugin "failer"`) || !strings.Contains(err.Error(), "Config.Size") {
		t.Fatalf("Start() = %v, want the plugin's error naming it and the field", err)
	}
}
