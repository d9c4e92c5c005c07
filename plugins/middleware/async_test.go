package middleware_test

import (
	"context"
	"maps"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/middleware"
)

// ContinueAsync answers the client at once; the rest of the chain and the
// tool finish in the background and the callback gets the final result.
// The tool waits until the client has its answer, so the answer cannot
// have come from the tool. finally runs once for the request.
func TestContinueAsync(t *testing.T) {
	tr, bg := &tracer{}, &tracer{} // bg: what runs in the background
	release := make(chan struct{})
	type final struct {
		out any
		err error
	}
	done := make(chan final, 2)
	var calls atomic.Int32
	ids := make(chan string, 2) // the request IDs the chain saw
	async := middleware.Middleware{Name: "b", Flows: []middleware.Handlers{{
		Flow: flows.ToolsCallTool,
		Request: func(c *flows.Context) (middleware.Action, error) {
			tr.add("b.request")
			ids <- c.Request().ID
			return middleware.ContinueAsync(answer("accepted"), func(out any, err error) {
				calls.Add(1)
				done <- final{out, err}
			}), nil
		},
		Result: func(*flows.Context) error { tr.add("b.result"); return nil },
	}}}
	h := plugintest.New(t, &plugintest.Options{
		Plugins: []framework.Plugin{middleware.New(middleware.Config{Chain: []middleware.Middleware{tr.mw("a"), async, bg.mw("c")}})},
		Setup: func(s *framework.Server) error {
			return framework.AddToolFunc(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, in plugintest.Text) (plugintest.Text, error) {
				<-release
				bg.add("execute")
				return plugintest.Text{Text: "done: " + in.Text}, nil
			})
		},
	})
	h.Call("slow", plugintest.Text{Text: "job"}).WantText(plugintest.EchoText("accepted"))
	if got, want := tr.take(), "a.request, b.request, a.result"; got != want {
		t.Errorf("before the background run finished: trace %q, want %q", got, want)
	}
	close(release)
	f := <-done
	res, ok := f.out.(*mcp.CallToolResult)
	if f.err != nil || !ok || res.IsError || res.Content[0].(*mcp.TextContent).Text != plugintest.EchoText("done: job") {
		t.Errorf("the callback got %#v, %v", f.out, f.err)
	}
	if got, want := bg.take(), "c.request, execute, c.result"; got != want {
		t.Errorf("the background run: trace %q, want %q", got, want)
	}
	// One request: its finally ran once, in the server's run; the
	// background run has none of its own.
	if len(ids) != 1 {
		t.Fatalf("the async middleware saw %d requests, want 1", len(ids))
	}
	if got, want := h.Finally(), map[string]int{<-ids: 1}; !maps.Equal(got, want) {
		t.Errorf("finally ran %v times per request, want %v", got, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the callback was called %d times", n)
	}
}

// The background run reports failures to the callback as the client would
// have seen them: a tool's failure is an isError result.
func TestContinueAsyncFailure(t *testing.T) {
	done := make(chan any, 1)
	async := middleware.Middleware{Name: "async", Flows: []middleware.Handlers{{
		Flow: flows.ToolsCallTool,
		Request: func(c *flows.Context) (middleware.Action, error) {
			return middleware.ContinueAsync(answer("accepted"), func(out any, err error) {
				if err != nil {
					done <- err
					return
				}
				done <- out
			}), nil
		},
	}}}
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{middleware.New(middleware.Config{Chain: []middleware.Middleware{async}})}})
	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantText(plugintest.EchoText("accepted"))
	res, ok := (<-done).(*mcp.CallToolResult)
	if !ok || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "fail: x" {
		t.Errorf("the callback got %#v", res)
	}
}

func TestBadConfig(t *testing.T) {
	noop := func(*flows.Context) error { return nil }
	tests := []struct {
		cfg  middleware.Config
		want string
	}{
		{middleware.Config{Chain: []middleware.Middleware{{}}}, "chain[0].name: must not be empty"},
		{middleware.Config{Chain: []middleware.Middleware{{Name: "a"}, {Name: "a"}}}, `chain[1].name: "a" names two middlewares`},
		{middleware.Config{Chain: []middleware.Middleware{{Name: "a", Flows: []middleware.Handlers{{Flow: "tools:call"}}}}}, `chain[0].flows[0].flow: unknown flow "tools:call"`},
		{middleware.Config{Chain: []middleware.Middleware{{Name: "a", Flows: []middleware.Handlers{{Flow: flows.ToolsCallTool, Result: noop}, {Flow: flows.ToolsCallTool}}}}},
			`chain[0].flows[1].flow: middleware "a" handles tools:call-tool twice`},
		{middleware.Config{AsyncTimeout: -1}, "async_timeout: must not be negative"},
	}
	for _, tt := range tests {
		srv := framework.NewServer(&mcp.Implementation{Name: "s"}, nil)
		if err := srv.Use(middleware.New(tt.cfg)); err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Start() = %v, want %q", err, tt.want)
		}
	}
}
