package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/proctest"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/stages"
)

// transports are the ways the tests reach the test upstream.
var transports = []struct {
	name     string
	upstream func(t *testing.T, name string) gateway.Upstream
}{
	{"stdio", func(_ *testing.T, name string) gateway.Upstream { return stdio(name) }},
	{"http", func(t *testing.T, name string) gateway.Upstream {
		u := httpUpstream(t, name, "-token", "s3cret")
		u.Token = "s3cret"
		return u
	}},
}

func TestForwarding(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			srv, _ := serve(t, func(srv *framework.Server) {
				// Hooks on the mounted tools: one rewrites the raw
				// arguments, one the validated ones, one reads the
				// mounted entity.
				check(t, srv.Hook(
					flows.On(stages.BeforeValidation, func(c flows.ToolCall[map[string]any, *mcp.CallToolResult]) error {
						if c.Name() == "echo" {
							c.SetArgs(json.RawMessage(`{"who":"raw"}`))
						}
						return nil
					}),
					flows.On(stages.AfterValidation, func(c flows.ToolCall[map[string]any, *mcp.CallToolResult]) error {
						if c.Name() == "echo" {
							(*c.Input())["added"] = true
						}
						m, ok := gateway.From(c.Context)
						mu.Lock()
						defer mu.Unlock()
						if ok {
							seen = append(seen, m.Upstream+"/"+m.Name+"/"+m.Health().State.String())
						}
						return nil
					}),
				))
			}, tr.upstream(t, "up"))
			cs := connect(t, srv, nil)

			got, isErr := call(t, cs, "echo", map[string]any{"who": "client"})
			if isErr || got != `{"added":true,"who":"raw"}` {
				t.Errorf("echo = %q (isError %v), want the arguments as the hooks left them", got, isErr)
			}
			if got, isErr := call(t, cs, "fail", nil); !isErr || got != "it failed" {
				t.Errorf("fail = %q (isError %v), want the upstream's isError result", got, isErr)
			}
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "reject"})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != -32042 || !strings.Contains(wire.Message, "rejected upstream") {
				t.Errorf("reject: err = %v, want the upstream's protocol error -32042", err)
			}
			mu.Lock()
			if !slices.Contains(seen, "up/echo/up") {
				t.Errorf("hooks saw mounted entities %v, want up/echo/up among them", seen)
			}
			mu.Unlock()

			pr, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "ada"}})
			if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello ada" {
				t.Errorf("greet = %v, %v", pr, err)
			}
			for uri, want := range map[string]string{"test://hello": "hello", "test://item/7": "item test://item/7"} {
				rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want {
					t.Errorf("read %s = %v, %v", uri, rr, err)
				}
			}
			cr, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: mcp.CompleteParamsArgument{Name: "name", Value: "a"}})
			if err != nil || !slices.Equal(cr.Completion.Values, []string{"a-done"}) {
				t.Errorf("complete = %v, %v", cr, err)
			}
			if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://hello"}); err != nil {
				t.Errorf("subscribe: %v", err)
			}
		})
	}
}

func TestUpstreamMessagesReachTheCaller(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var sampled []string
			var progress []float64
			var logs []string
			var mu sync.Mutex
			// order is what the gateway's server sent, in order: the
			// notifications, and the results of tools/call.
			var order []string
			srv, _ := serve(t, func(srv *framework.Server) {
				// A hook on the sampling request the gateway sends on
				// rewrites it: the client sees the rewritten prompt.
				check(t, srv.Hook(flows.On(stages.BeforeExecute, func(c flows.Sampling) error {
					p := c.Params()
					p.Messages[0].Content = []mcp.Content{&mcp.TextContent{Text: "rewritten"}}
					return nil
				})))
				check(t, srv.Hook(
					flows.Hook{Flow: flows.NotificationsFromServer, Stage: stages.BeforeExecute, Name: "order", Fn: func(c *flows.Context) error {
						mu.Lock()
						defer mu.Unlock()
						order = append(order, c.Request().Method)
						return nil
					}},
					flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "order", Fn: func(c *flows.Context) error {
						mu.Lock()
						defer mu.Unlock()
						order = append(order, "result of "+c.Entity().Name)
						return nil
					}},
				))
			}, tr.upstream(t, "up"))
			cs := connect(t, srv, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					mu.Lock()
					sampled = append(sampled, req.Params.Messages[0].Content.(*mcp.TextContent).Text)
					mu.Unlock()
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "42"}}, nil
				},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
				},
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					defer mu.Unlock()
					if req.Params.ProgressToken == "tok" {
						progress = append(progress, req.Params.Progress)
					}
				},
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					mu.Lock()
					defer mu.Unlock()
					logs = append(logs, req.Params.Data.(string))
				},
			}, &mcp.Root{URI: "file:///work", Name: "work"})

			if got, _ := call(t, cs, "sample", map[string]any{"text": "question"}); got != "sampled: 42" {
				t.Errorf("sample = %q", got)
			}
			if got, _ := call(t, cs, "elicit", nil); got != "accept ada" {
				t.Errorf("elicit = %q", got)
			}
			if got, _ := call(t, cs, "roots", nil); got != "roots: file:///work" {
				t.Errorf("roots = %q", got)
			}
			p := &mcp.CallToolParams{Name: "progress"}
			p.SetProgressToken("tok")
			if _, err := cs.CallTool(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			call(t, cs, "log", nil)
			// Notifications may reach the client after the result.
			eventually(t, "3 progress notifications and 2 log messages", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(progress) >= 3 && len(logs) >= 2
			})
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(sampled, []string{"rewritten"}) {
				t.Errorf("the client sampled %q, want the hook's rewrite", sampled)
			}
			if !slices.Equal(progress, []float64{1, 2, 3}) {
				t.Errorf("progress with the client's token = %v, want 1, 2, 3", progress)
			}
			if !slices.Equal(logs, []string{"first", "second"}) {
				t.Errorf("logs = %q", logs)
			}
			// The gateway passed the upstream's notifications on before
			// the result of the call they are about. List changes are
			// about no call: a client session's views may change at any
			// time (see views.go), so they are left out of the order.
			order = slices.DeleteFunc(slices.Clone(order), func(m string) bool { return strings.HasSuffix(m, "/list_changed") })
			i := slices.Index(order, "result of progress")
			if i < 3 || !slices.Equal(order[i-3:i], []string{"notifications/progress", "notifications/progress", "notifications/progress"}) {
				t.Errorf("the gateway sent %q: want 3 progress notifications right before the result of progress", order)
			}
			i = slices.Index(order, "result of log")
			if i < 2 || !slices.Equal(order[i-2:i], []string{"notifications/message", "notifications/message"}) {
				t.Errorf("the gateway sent %q: want 2 log messages right before the result of log", order)
			}
		})
	}
}

func TestCancellationReachesUpstream(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv, _ := serve(t, nil, tr.upstream(t, "up"))
			started := make(chan struct{}, 1)
			cs := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
				started <- struct{}{}
			}})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "wait"}
				p.SetProgressToken("w")
				_, err := cs.CallTool(ctx, p)
				errc <- err
			}()
			<-started // the call reached the upstream
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("the cancelled call succeeded")
			}
			eventually(t, "the upstream's wait call to be cancelled", func() bool {
				got, _ := call(t, cs, "cancelled", nil)
				return got == "1"
			})
		})
	}
}

// TestListChanged has the upstream add an entity and remove another, of
// each kind: the mount follows and the clients are told the list
// changed; told again of a list that did not change, they are told too.
func TestListChanged(t *testing.T) {
	for _, kind := range []struct {
		name string
		// adder is the upstream's tool that adds fresh and removes gone.
		adder, fresh, gone string
		// opts sets the client's handler of the kind's list_changed.
		opts func(changed chan<- struct{}) *mcp.ClientOptions
		list func(cs *mcp.ClientSession) ([]string, error)
		// use calls the fresh entity and returns what it answered.
		use func(cs *mcp.ClientSession) (string, error)
	}{
		{"tools", "add_tool", "fresh", "echo",
			func(changed chan<- struct{}) *mcp.ClientOptions {
				return &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
			},
			func(cs *mcp.ClientSession) ([]string, error) {
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					return nil, err
				}
				var names []string
				for _, tl := range res.Tools {
					names = append(names, tl.Name)
				}
				return names, nil
			},
			func(cs *mcp.ClientSession) (string, error) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fresh"})
				if err != nil {
					return "", err
				}
				return text(res), nil
			}},
		{"prompts", "add_prompt", "fresh", "greet",
			func(changed chan<- struct{}) *mcp.ClientOptions {
				return &mcp.ClientOptions{PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed <- struct{}{} }}
			},
			func(cs *mcp.ClientSession) ([]string, error) {
				res, err := cs.ListPrompts(context.Background(), nil)
				if err != nil {
					return nil, err
				}
				var names []string
				for _, p := range res.Prompts {
					names = append(names, p.Name)
				}
				return names, nil
			},
			func(cs *mcp.ClientSession) (string, error) {
				res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "fresh"})
				if err != nil {
					return "", err
				}
				return res.Messages[0].Content.(*mcp.TextContent).Text, nil
			}},
		{"resources", "add_resource", "test://fresh", "test://hello",
			func(changed chan<- struct{}) *mcp.ClientOptions {
				return &mcp.ClientOptions{ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} }}
			},
			func(cs *mcp.ClientSession) ([]string, error) {
				res, err := cs.ListResources(context.Background(), nil)
				if err != nil {
					return nil, err
				}
				var uris []string
				for _, r := range res.Resources {
					uris = append(uris, r.URI)
				}
				return uris, nil
			},
			func(cs *mcp.ClientSession) (string, error) {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://fresh"})
				if err != nil {
					return "", err
				}
				return res.Contents[0].Text, nil
			}},
	} {
		for _, tr := range transports {
			t.Run(kind.name+"/"+tr.name, func(t *testing.T) {
				srv, _ := serve(t, nil, tr.upstream(t, "up"))
				changed := make(chan struct{}, 10)
				cs := connect(t, srv, kind.opts(changed))
				call(t, cs, kind.adder, map[string]any{"text": kind.fresh})
				select {
				case <-changed:
				case <-time.After(time.Minute): // a bound on a hang
					t.Fatal("the client was not told of the upstream's list change")
				}
				eventually(t, "the list to show "+kind.fresh+" and not "+kind.gone, func() bool {
					names, err := kind.list(cs)
					if err != nil {
						t.Fatal(err)
					}
					return slices.Contains(names, kind.fresh) && !slices.Contains(names, kind.gone)
				})
				if got, err := kind.use(cs); err != nil || got != "added" {
					t.Errorf("%s = %q, %v; want the upstream's answer", kind.fresh, got, err)
				}
				// The upstream says its list changed again, though the
				// entities are the same: the clients are told all the same.
				for len(changed) > 0 {
					<-changed
				}
				call(t, cs, kind.adder, map[string]any{"text": kind.fresh})
				select {
				case <-changed:
				case <-time.After(time.Minute): // a bound on a hang
					t.Fatal("the client was not told of the upstream's second list change")
				}
			})
		}
	}
}

func TestUpstreamHangs(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			a := tr.upstream(t, "a")
			a.Prefix = "a_"
			a.Timeout = 300 * time.Millisecond
			b := stdio("b")
			b.Prefix = "b_"
			b.Command = append(b.Command, "-noresources")
			srv, _ := serve(t, nil, a, b)
			cs := connect(t, srv, nil)

			// An upstream that never answers: a bounded failure.
			got, isErr := call(t, cs, "a_hang", nil)
			if !isErr || !strings.Contains(got, `upstream "a" did not answer tools/call "hang" within 300ms`) {
				t.Errorf("hang = %q (isError %v)", got, isErr)
			}

			if tr.name == "stdio" {
				// The gateway's own session answers pings: a hang does
				// not mark the upstream down.
				if got, _ := call(t, cs, "a_echo", map[string]any{}); got != "{}" {
					t.Errorf("echo after a hang = %q", got)
				}
			}
		})
	}
}

func TestUpstreamDies(t *testing.T) {
	a := stdio("a")
	a.Prefix = "a_"
	a.Shared = true // the call and the gateway share one process
	b := stdio("b")
	b.Prefix = "b_"
	b.Command = append(b.Command, "-noresources")
	srv, gw := serve(t, nil, a, b)
	cs := connect(t, srv, nil)

	got, isErr := call(t, cs, "a_die", nil)
	if !isErr || !strings.Contains(got, `upstream "a" went away during tools/call "die"`) {
		t.Errorf("die = %q (isError %v), want an error naming the upstream", got, isErr)
	}
	// The other upstream is not affected.
	if got, _ := call(t, cs, "b_echo", map[string]any{"x": 1}); got != `{"x":1}` {
		t.Errorf("b_echo while a is down = %q", got)
	}
	// a reconnects, and serves again.
	eventually(t, "upstream a to reconnect", func() bool {
		h := gw.Health()[0]
		return h.State == gateway.StateUp && h.Reconnects == 1
	})
	if got, _ := call(t, cs, "a_echo", map[string]any{"x": 2}); got != `{"x":2}` {
		t.Errorf("a_echo after reconnecting = %q", got)
	}
}

func TestDownUpstreamFailsFast(t *testing.T) {
	a := stdio("a")
	a.Shared = true
	a.MinBackoff, a.MaxBackoff = time.Hour, time.Hour // stays down
	srv, gw := serve(t, nil, a)
	cs := connect(t, srv, nil)
	call(t, cs, "die", nil)
	eventually(t, "upstream a to be down", func() bool { return gw.Health()[0].State == gateway.StateDown })
	got, isErr := call(t, cs, "echo", nil)
	if !isErr || got != `upstream "a" is unavailable (down)` {
		t.Errorf("echo while down = %q (isError %v)", got, isErr)
	}
}

func TestStartErrors(t *testing.T) {
	pa, pb := stdio("a"), stdio("b")
	pa.Prefix, pb.Prefix = "a_", "b_"
	for _, tc := range []struct {
		name string
		ups  []gateway.Upstream
		want string
	}{
		{"clash", []gateway.Upstream{stdio("a"), stdio("b")}, `tool "echo" of upstream "b" clashes with upstream "a"'s: set a Prefix on one of them`},
		{"resource clash", []gateway.Upstream{pa, pb}, `of upstream "b" clashes with upstream "a"'s: set a ResourcePrefix on one of them (a Prefix renames tools and prompts only)`},
		{"no name", []gateway.Upstream{{Command: []string{"x"}}}, "an upstream needs a name"},
		{"both", []gateway.Upstream{{Name: "a", Command: []string{"x"}, URL: "http://x"}}, `upstream "a": set Command or URL, not both`},
		{"unreachable", []gateway.Upstream{{Name: "a", Command: []string{"/nonexistent/upstream"}}}, `upstream "a"`},
		{"none", nil, "no upstream to mount"},
		{"total timeout alone", []gateway.Upstream{{Name: "a", Command: []string{"x"}, MaxTotalTimeout: time.Minute}},
			`upstream "a": MaxTotalTimeout bounds a request whose Timeout progress restarts: set ResetTimeoutOnProgress too, or leave MaxTotalTimeout out`},
		{"total timeout short", []gateway.Upstream{{Name: "a", Command: []string{"x"}, ResetTimeoutOnProgress: true, MaxTotalTimeout: time.Second}},
			`upstream "a": MaxTotalTimeout (1s) is shorter than Timeout (30s): progress could never extend a request`},
		{"token and token source", []gateway.Upstream{{Name: "a", URL: "http://x", Token: "t", TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})}},
			`upstream "a": set Token or TokenSource, not both`},
		{"token source on a command", []gateway.Upstream{{Name: "a", Command: []string{"x"}, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})}},
			`upstream "a": Token, TokenSource and Header are for URL upstreams`},
		{"a variable name with =", []gateway.Upstream{{Name: "a", Command: []string{"x"}, InheritEnv: []string{"LANG=C"}}},
			`upstream "a": InheritEnv: "LANG=C" is not a variable name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
			check(t, srv.Use(gateway.New(gateway.Config{Upstreams: tc.ups})))
			err := srv.Start()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start: %v, want %q", err, tc.want)
			}
			if err != nil && strings.Count(err.Error(), "invalid") > 1 {
				t.Errorf("Start: %v: says invalid twice", err)
			}
		})
	}
}

// TestStatelessShares serves the gateway over stateless HTTP: calls share
// the gateway's upstream session, and the upstream's requests to its
// client are refused with an error.
func TestStatelessShares(t *testing.T) {
	srv, _ := serve(t, nil, stdio("up"))
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
	check(t, err)
	hs := httptestServer(t, h)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "no"}}, nil
		}})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs}, nil)
	check(t, err)
	defer cs.Close()
	for i := range 3 {
		if got, _ := call(t, cs, "echo", map[string]any{"i": i}); got != `{"i":`+string(rune('0'+i))+`}` {
			t.Errorf("echo %d = %q", i, got)
		}
	}
	p := &mcp.CallToolParams{Name: "progress"}
	p.SetProgressToken("tok")
	if res, err := cs.CallTool(context.Background(), p); err != nil || text(res) != "done" {
		t.Errorf("progress: %v %v", res, err)
	}
	if got, isErr := call(t, cs, "sample", map[string]any{"text": "q"}); !isErr {
		t.Errorf("sample over stateless HTTP = %q, want an error", got)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestClientSessionUpstreamDies kills the upstream process of one client
// session: its call fails, the upstream stays up for the gateway, and the
// session's next call gets a new upstream process.
func TestClientSessionUpstreamDies(t *testing.T) {
	srv, gw := serve(t, nil, stdio("a"))
	cs := connect(t, srv, nil)
	if got, isErr := call(t, cs, "die", nil); !isErr || !strings.Contains(got, `upstream "a" went away during tools/call "die"`) {
		t.Errorf("die = %q (isError %v)", got, isErr)
	}
	eventually(t, "the next call to succeed", func() bool {
		got, _ := call(t, cs, "echo", map[string]any{"n": 1})
		return got == `{"n":1}`
	})
	if h := gw.Health()[0]; h.State != gateway.StateUp || h.Reconnects != 0 {
		t.Errorf("health = %+v, want up without reconnection", h)
	}
}

// TestSubscriptions subscribes two client sessions to one upstream
// resource: the upstream's updates reach each once.
func TestSubscriptions(t *testing.T) {
	srv, _ := serve(t, nil, httpUpstream(t, "up"))
	var mu sync.Mutex
	counts := map[string]int{}
	client := func(name string) *mcp.ClientSession {
		cs := connect(t, srv, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			defer mu.Unlock()
			counts[name+" "+req.Params.URI]++
		}})
		check(t, cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://hello"}))
		return cs
	}
	a, b := client("a"), client("b")
	for round := 1; round <= 2; round++ {
		call(t, a, "touch", nil)
		eventually(t, "both sessions to hear of the update", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return counts["a test://hello"] >= round && counts["b test://hello"] >= round
		})
	}
	check(t, b.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "test://hello"}))
	call(t, a, "touch", nil)
	eventually(t, "a to hear of the third update", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return counts["a test://hello"] >= 3
	})
	mu.Lock()
	defer mu.Unlock()
	if counts["a test://hello"] != 3 || counts["b test://hello"] != 2 {
		t.Errorf("updates heard: %v, want a 3 and b 2 (one per update and subscriber)", counts)
	}
}

// TestHTTPUpstreamRestarts stops an HTTP upstream: the gateway marks it
// down and fails calls at once; when it listens again on its address, the
// gateway reconnects and calls succeed.
func TestHTTPUpstreamRestarts(t *testing.T) {
	u, cmd := startHTTPUpstream(t, "up")
	srv, gw := serve(t, nil, u)
	cs := connect(t, srv, nil)
	if got, _ := call(t, cs, "echo", map[string]any{"n": 1}); got != `{"n":1}` {
		t.Fatalf("echo = %q", got)
	}
	check(t, cmd.Process.Kill())
	_ = cmd.Wait()
	eventually(t, "the upstream to be marked down", func() bool {
		call(t, cs, "echo", nil) // a failure makes the gateway check
		return gw.Health()[0].State != gateway.StateUp
	})
	if got, isErr := call(t, cs, "echo", nil); !isErr || !strings.Contains(got, `upstream "up"`) {
		t.Errorf("echo while down = %q (isError %v)", got, isErr)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(u.URL, "http://"), "/mcp")
	startHTTPUpstream(t, "up", "-addr", addr)
	eventually(t, "the gateway to reconnect", func() bool {
		h := gw.Health()[0]
		return h.State == gateway.StateUp && h.Reconnects == 1
	})
	eventually(t, "calls to succeed again", func() bool {
		got, _ := call(t, cs, "echo", map[string]any{"n": 2})
		return got == `{"n":2}`
	})
}

// TestHeaderReachesUpstream mounts an HTTP upstream that refuses requests
// without a header: the Header of the upstream is sent by the gateway's
// own session (Start lists through it) and by a client session's.
func TestHeaderReachesUpstream(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		ok     bool
	}{
		{"sent", http.Header{"X-Team": {"blue"}}, true},
		{"wrong value", http.Header{"X-Team": {"red"}}, false},
		{"not set", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := httpUpstream(t, "up", "-header", "X-Team=blue")
			u.Header = tc.header
			gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{u}})
			srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
			check(t, srv.Use(gw))
			t.Cleanup(func() { gw.Close() })
			err := srv.Start()
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), `upstream "up"`) {
					t.Errorf("Start: %v, want the upstream's refusal", err)
				}
				return
			}
			check(t, err)
			if got, isErr := call(t, connect(t, srv, nil), "echo", map[string]any{"n": 1}); isErr || got != `{"n":1}` {
				t.Errorf("echo = %q (isError %v)", got, isErr)
			}
		})
	}
}

// TestNameTakenByLocalEntity mounts an upstream whose entity has the name
// of a local one: at Start that fails Start, naming the entity; after
// Start, when the upstream adds it, the local entity stays and the log
// says the upstream's was left out.
func TestNameTakenByLocalEntity(t *testing.T) {
	for _, tc := range []struct {
		name string
		// local adds the local entity, named name.
		local func(srv *framework.Server, name string) error
		// kind and at are the entity's kind in the error and its name at
		// Start; adder the upstream's tool that adds one after Start.
		kind, at, adder, later string
		// use reads the entity of the name later and returns what it says.
		use func(cs *mcp.ClientSession, name string) (string, error)
	}{
		{"tool", func(srv *framework.Server, name string) error {
			return framework.AddToolFunc(srv, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "local"}}}, nil
			})
		}, "tool", "echo", "add_tool", "late", func(cs *mcp.ClientSession, name string) (string, error) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
			if err != nil {
				return "", err
			}
			return text(res), nil
		}},
		{"prompt", func(srv *framework.Server, name string) error {
			return framework.AddPromptFunc(srv, &mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "local"}}}}, nil
			})
		}, "prompt", "greet", "add_prompt", "late", func(cs *mcp.ClientSession, name string) (string, error) {
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name})
			if err != nil {
				return "", err
			}
			return res.Messages[0].Content.(*mcp.TextContent).Text, nil
		}},
		{"resource", func(srv *framework.Server, uri string) error {
			return framework.AddResourceFunc(srv, &mcp.Resource{URI: uri, Name: "local"}, nil, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "local"}}}, nil
			})
		}, "resource", "test://hello", "add_resource", "test://late", func(cs *mcp.ClientSession, uri string) (string, error) {
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				return "", err
			}
			return res.Contents[0].Text, nil
		}},
	} {
		t.Run(tc.name+"/at start", func(t *testing.T) {
			gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{stdio("up")}})
			srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
			check(t, tc.local(srv, tc.at))
			check(t, srv.Use(gw))
			t.Cleanup(func() { gw.Close() })
			err := srv.Start()
			if want := fmt.Sprintf("%s %q", tc.kind, tc.at); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Start: %v, want an error naming %s", err, want)
			}
		})
		t.Run(tc.name+"/after start", func(t *testing.T) {
			logs := &plugintest.Buffer{}
			gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{stdio("up")}})
			srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, &framework.Options{
				Logger: slog.New(slog.NewTextHandler(logs, nil))})
			check(t, tc.local(srv, tc.later))
			check(t, srv.Use(gw))
			check(t, srv.Start())
			t.Cleanup(func() { gw.Close() })
			cs := connect(t, srv, nil)
			call(t, cs, tc.adder, map[string]any{"text": tc.later})
			want := "msg=" + strconv.Quote(fmt.Sprintf(`gateway: upstream "up": %s %q is already served by another owner; not mounted`, tc.kind, tc.later))
			eventually(t, "the log to say "+want, func() bool { return strings.Contains(logs.String(), want) })
			if got, err := tc.use(cs, tc.later); err != nil || got != "local" {
				t.Errorf("%s = %q, %v; want the local entity's answer", tc.later, got, err)
			}
		})
	}
}

// TestUpstreamFreezes stops the upstream's process (SIGSTOP: it answers
// nothing, not even a ping): a call fails within the upstream's Timeout,
// the gateway marks it down (in Health and for hooks) with a warning in
// the log, and the other upstream answers all along. Over stdio the
// upstream is Shared, so that the stopped process is the only one.
func TestUpstreamFreezes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			a := tr.upstream(t, "a")
			a.Prefix = "a_"
			a.Shared = tr.name == "stdio"
			a.Timeout, a.ConnectTimeout = 2*time.Second, 5*time.Second
			a.MinBackoff, a.MaxBackoff = time.Hour, time.Hour // stays down
			b := stdio("b")
			b.Prefix = "b_"
			b.Command = append(b.Command, "-noresources")
			// A hook reads the state of the upstream behind each call.
			states := make(chan gateway.State, 10)
			srv, gw, logs := serveLogged(t, func(srv *framework.Server) {
				check(t, srv.Hook(flows.On(stages.BeforeExecute, func(c flows.ToolCall[map[string]any, *mcp.CallToolResult]) error {
					if m, ok := gateway.From(c.Context); ok && m.Upstream == "a" {
						select {
						case states <- m.Health().State:
						default:
						}
					}
					return nil
				})))
			}, a, b)
			cs := connect(t, srv, nil)

			got, _ := call(t, cs, "a_pid", nil)
			pid, err := strconv.Atoi(got)
			if err != nil {
				t.Fatalf("a_pid = %q", got)
			}
			if s := receive(t, states); s != gateway.StateUp {
				t.Fatalf("the hook saw a %v before the freeze, want up", s)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
			check(t, proctest.Stop(pid, 10*time.Second))

			start := time.Now()
			got, isErr := call(t, cs, "a_echo", map[string]any{})
			took := time.Since(start)
			t.Logf("the call failed after %v", took)
			if took > 20*time.Second {
				t.Errorf("the call to the frozen upstream took %v, want about its Timeout (%v)", took, a.Timeout)
			}
			if want := fmt.Sprintf(`upstream "a" did not answer tools/call "echo" within %v`, a.Timeout); !isErr || got != want {
				t.Errorf("echo to the frozen upstream = %q (isError %v)", got, isErr)
			}
			receive(t, states)
			if got, _ := call(t, cs, "b_echo", map[string]any{"n": 1}); got != `{"n":1}` {
				t.Errorf("b_echo while a is frozen = %q", got)
			}
			eventually(t, "upstream a to be down", func() bool { return gw.Health()[0].State == gateway.StateDown })
			if h := gw.Health()[1]; h.State != gateway.StateUp {
				t.Errorf("upstream b is %v, want up", h.State)
			}
			got, isErr = call(t, cs, "a_echo", map[string]any{})
			if !isErr || got != `upstream "a" is unavailable (down)` {
				t.Errorf("echo while down = %q (isError %v)", got, isErr)
			}
			if s := receive(t, states); s != gateway.StateDown {
				t.Errorf("the hook saw a %v, want down", s)
			}
			if got, _ := call(t, cs, "b_echo", map[string]any{"n": 2}); got != `{"n":2}` {
				t.Errorf("b_echo while a is down = %q", got)
			}
			// The gateway gives the frozen session up, to reconnect.
			eventually(t, "the gateway to give the frozen session up", func() bool {
				return strings.Contains(logs.String(), `level=WARN msg="gateway: upstream down; reconnecting" upstream=a`)
			})
			for _, want := range []string{
				`level=WARN msg="gateway: forwarded request did not answer in time" upstream=a method=tools/call name=echo`,
				`level=WARN msg="gateway: upstream does not answer a ping" upstream=a`,
			} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the log does not say %s:\n%s", want, logs.String())
				}
			}
		})
	}
}

// TestUpstreamThaws freezes an HTTP upstream until the gateway marks it
// down, then lets it go on (SIGCONT): the gateway reconnects and calls
// succeed again.
func TestUpstreamThaws(t *testing.T) {
	a, cmd := startHTTPUpstream(t, "a")
	a.Timeout, a.ConnectTimeout = 2*time.Second, 5*time.Second
	srv, gw := serve(t, nil, a)
	cs := connect(t, srv, nil)
	if got, _ := call(t, cs, "echo", map[string]any{"n": 1}); got != `{"n":1}` {
		t.Fatalf("echo = %q", got)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	check(t, proctest.Stop(pid, 10*time.Second))
	if got, isErr := call(t, cs, "echo", nil); !isErr || !strings.Contains(got, "did not answer") {
		t.Errorf("echo to the frozen upstream = %q (isError %v)", got, isErr)
	}
	eventually(t, "upstream a to be down", func() bool { return gw.Health()[0].State != gateway.StateUp })
	check(t, syscall.Kill(pid, syscall.SIGCONT))
	eventually(t, "the gateway to reconnect", func() bool {
		h := gw.Health()[0]
		return h.State == gateway.StateUp && h.Reconnects == 1
	})
	eventually(t, "calls to succeed again", func() bool {
		got, _ := call(t, cs, "echo", map[string]any{"n": 2})
		return got == `{"n":2}`
	})
}

// TestClientSessionUpstreamFreezes freezes the stdio upstream process of
// one client session (the gateway's own still answers): the call fails
// within the Timeout, the gateway closes that session, and the client
// session's next call gets a new process; the upstream stays up.
func TestClientSessionUpstreamFreezes(t *testing.T) {
	a := stdio("a")
	a.Timeout, a.ConnectTimeout = 2*time.Second, 5*time.Second
	srv, gw, logs := serveLogged(t, nil, a)
	cs := connect(t, srv, nil)
	got, _ := call(t, cs, "pid", nil)
	pid, err := strconv.Atoi(got)
	if err != nil {
		t.Fatalf("pid = %q", got)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	check(t, proctest.Stop(pid, 10*time.Second))
	if got, isErr := call(t, cs, "echo", nil); !isErr || got != fmt.Sprintf(`upstream "a" did not answer tools/call "echo" within %v`, a.Timeout) {
		t.Errorf("echo to the frozen process = %q (isError %v)", got, isErr)
	}
	eventually(t, "the next call to succeed", func() bool {
		got, _ := call(t, cs, "echo", map[string]any{"n": 1})
		return got == `{"n":1}`
	})
	if got, _ := call(t, cs, "pid", nil); got == strconv.Itoa(pid) {
		t.Errorf("the client session still calls process %s", got)
	}
	if h := gw.Health()[0]; h.State != gateway.StateUp || h.Reconnects != 0 {
		t.Errorf("health = %+v, want up without reconnection", h)
	}
	if want := `level=WARN msg="gateway: a client session's upstream session does not answer a ping; closing it" upstream=a`; !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say %s:\n%s", want, logs.String())
	}
}

// TestElicitationComplete: an upstream's URL-mode elicitation reaches the
// client, and so does its notifications/elicitation/complete with the
// upstream's elicitationId; the server sends it before the call's result.
func TestElicitationComplete(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var order []string // what the gateway's server sent, in order
			srv, _ := serve(t, func(srv *framework.Server) {
				check(t, srv.Hook(
					flows.Hook{Flow: flows.NotificationsFromServer, Stage: stages.BeforeExecute, Name: "order", Fn: func(c *flows.Context) error {
						mu.Lock()
						defer mu.Unlock()
						order = append(order, c.Request().Method)
						return nil
					}},
					flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "order", Fn: func(c *flows.Context) error {
						mu.Lock()
						defer mu.Unlock()
						order = append(order, "result of "+c.Entity().Name)
						return nil
					}},
				))
			}, tr.upstream(t, "up"))
			completed := make(chan string, 1)
			var asked []string
			cs := connect(t, srv, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Mode+" "+req.Params.URL+" "+req.Params.ElicitationID)
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
				ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
					completed <- req.Params.ElicitationID
				},
			})
			if got, isErr := call(t, cs, "elicit_url", nil); got != "url accept" || isErr {
				t.Fatalf("elicit_url = %q (isError %v)", got, isErr)
			}
			select {
			case id := <-completed:
				if id != "consent-1" {
					t.Errorf("completed elicitation %q, want consent-1", id)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the client never heard the elicitation complete")
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"url https://auth.invalid/consent consent-1"}; !slices.Equal(asked, want) {
				t.Errorf("client was asked %q, want %q", asked, want)
			}
			if want := []string{"notifications/elicitation/complete", "result of elicit_url"}; !slices.Equal(order, want) {
				t.Errorf("server sent %q, want %q", order, want)
			}
		})
	}
}

// receive returns the next value of c, failing the test after ten seconds
// without one.
func receive[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received in ten seconds")
		var zero T
		return zero
	}
}
