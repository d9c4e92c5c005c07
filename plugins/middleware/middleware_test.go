package middleware_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/middleware"
	"github.com/hookflow/hookflow/stages"
)

func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		pass := func(name string) middleware.Middleware {
			return middleware.Middleware{Name: name, Flows: []middleware.Handlers{{Flow: flows.ToolsCallTool,
				Request: func(*flows.Context) (middleware.Action, error) { return middleware.Continue(), nil },
				Result:  func(*flows.Context) error { return nil },
				Error:   func(_ *flows.Context, err error) (any, error) { return nil, err },
			}}}
		}
		return middleware.New(middleware.Config{Chain: []middleware.Middleware{pass("a"), pass("b")}})
	}, nil)
}

// tracer builds middlewares that record what runs into a shared trace and
// act on the text argument of the call: "<what> at <name>" makes the
// middleware <name> do <what>.
type tracer struct {
	mu    sync.Mutex
	trace []string
}

func (tr *tracer) add(s string) {
	tr.mu.Lock()
	tr.trace = append(tr.trace, s)
	tr.mu.Unlock()
}

func (tr *tracer) take() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := strings.Join(tr.trace, ", ")
	tr.trace = nil
	return s
}

func textOf(c *flows.Context) string {
	if in := flows.As[flows.ToolCall[plugintest.Text, plugintest.Text]](c).Input(); in != nil {
		return in.Text
	}
	return ""
}

// answer is an answer of the echo tool's output type.
func answer(text string) plugintest.Text { return plugintest.Text{Text: text} }

// says reports whether the call's text, "; "-separated instructions,
// holds what.
func says(c *flows.Context, what string) bool {
	for _, s := range strings.Split(textOf(c), "; ") {
		if s == what {
			return true
		}
	}
	return false
}

func (tr *tracer) mw(name string) middleware.Middleware {
	return middleware.Middleware{Name: name, Flows: []middleware.Handlers{{
		Flow: flows.ToolsCallTool,
		Request: func(c *flows.Context) (middleware.Action, error) {
			tr.add(name + ".request")
			switch {
			case says(c, "refuse at "+name):
				return middleware.Action{}, errors.New("refused by " + name)
			case says(c, "answer at "+name):
				return middleware.Respond(answer("answered by " + name)), nil
			}
			return middleware.Continue(), nil
		},
		Result: func(c *flows.Context) error {
			tr.add(name + ".result")
			if says(c, "fail result at "+name) {
				return errors.New("result failed at " + name)
			}
			return nil
		},
		Error: func(c *flows.Context, err error) (any, error) {
			tr.add(name + ".error")
			if says(c, "recover at "+name) {
				return answer("recovered by " + name), nil
			}
			return nil, err
		},
	}}}
}

// decisions records the DecidedBy of every tools/call run.
type decisions struct {
	mu   sync.Mutex
	last string
}

func (d *decisions) plugin() framework.Plugin {
	return framework.NewPlugin("decisions", func(pc *framework.PluginContext) error {
		return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "record", Fn: func(c *flows.Context) error {
			d.mu.Lock()
			d.last = c.DecidedBy()
			d.mu.Unlock()
			return nil
		}})
	})
}

func (d *decisions) take() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

func TestOnion(t *testing.T) {
	tr, dec := &tracer{}, &decisions{}
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{
		middleware.New(middleware.Config{Chain: []middleware.Middleware{tr.mw("a"), tr.mw("b"), tr.mw("c")}}), dec.plugin(),
	}})
	hook := func(stage, name string) string {
		return "plugintest/plugin:middleware/tools:call-tool/" + stage + "/" + name
	}
	tests := []struct {
		text      string
		trace     string
		result    string // "" for an isError result
		err       string
		decidedBy string
	}{
		{"plain", "a.request, b.request, c.request, c.result, b.result, a.result", plugintest.EchoText("plain"), "", ""},
		// A refusal: the middlewares before see the failure, the refuser and
		// those after do not.
		{"refuse at b", "a.request, b.request, a.error", "", "refused by b", hook("beforeExecute", "b")},
		// An answer: the middlewares before see it as a result.
		{"answer at b", "a.request, b.request, a.result", plugintest.EchoText("answered by b"), "", hook("beforeExecute", "b")},
		// A result handler that fails switches the rest to error handling.
		{"fail result at c", "a.request, b.request, c.request, c.result, b.error, a.error", "", "result failed at c", hook("afterExecute", "c")},
		// ... where an error handler can recover: the rest are results again.
		{"fail result at c; recover at b", "a.request, b.request, c.request, c.result, b.error, a.result", plugintest.EchoText("recovered by b"), "", ""},
		// An error handler recovers a refusal; it decided the run.
		{"refuse at c; recover at a", "a.request, b.request, c.request, b.error, a.error", plugintest.EchoText("recovered by a"), "", hook("onError", "a")},
	}
	for _, tt := range tests {
		r := h.Call(plugintest.ToolEcho, plugintest.Text{Text: tt.text})
		if got := tr.take(); got != tt.trace {
			t.Errorf("%s: trace %s\nwant  %s", tt.text, got, tt.trace)
		}
		switch {
		case tt.err != "":
			r.WantToolError(tt.err)
		case tt.result != "":
			r.WantText(tt.result)
		}
		if got := dec.take(); got != tt.decidedBy {
			t.Errorf("%s: decided by %q, want %q", tt.text, got, tt.decidedBy)
		}
	}
}

// A hook of the flow that stops the request before the chain: no
// middleware saw it, so none sees its failure.
func TestOnlyMiddlewaresThatSawTheRequest(t *testing.T) {
	tr := &tracer{}
	stop := framework.NewPlugin("stop", func(pc *framework.PluginContext) error {
		return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Priority: 10, Name: "stop", Fn: func(c *flows.Context) error {
			if textOf(c) == "stop" {
				return errors.New("stopped before the chain")
			}
			return nil
		}})
	})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{
		stop, middleware.New(middleware.Config{Chain: []middleware.Middleware{tr.mw("a"), tr.mw("b")}}),
	}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "stop"}).WantToolError("stopped before the chain")
	if got := tr.take(); got != "" {
		t.Errorf("trace %q, want nothing", got)
	}
	// The tool's own failure goes back through every middleware.
	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantToolError("fail: x")
	if got, want := tr.take(), "a.request, b.request, b.error, a.error"; got != want {
		t.Errorf("fail tool: trace %q, want %q", got, want)
	}
}
