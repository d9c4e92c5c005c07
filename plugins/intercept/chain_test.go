package intercept_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// inProcessHost serves ics from a hookflow server in this process and
// returns its configuration.
func inProcessHost(t *testing.T, name string, ics ...host.Interceptor) intercept.Server {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: name}, nil)
	if err := srv.Use(host.New(host.Config{Interceptors: ics})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	return intercept.Server{Name: name, Transport: host.InMemory(srv)}
}

// decisionLog collects a chain's decisions as "event by what outcome".
type decisionLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *decisionLog) add(_ context.Context, event string, d flows.Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, event+" "+d.By+" "+d.What+" "+d.Outcome)
}

func (l *decisionLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// textTool is an upstream's tool that echoes its text, counting calls.
type textTool struct {
	mu    sync.Mutex
	calls int
}

type textArgs struct {
	Text string `json:"text"`
}

func (tt *textTool) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "say"}, func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
		tt.mu.Lock()
		tt.calls++
		tt.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "said " + in.Text}}}, nil, nil
	})
	return srv
}

// The sending side governs what a client sends and what it receives: the
// request (mutate, then validate; atomic), the result (validate, then
// mutate), the decisions, the compat range, and nothing outside the
// SEP's context operations.
func TestChainSendingMiddleware(t *testing.T) {
	fail := host.Mutator(host.Spec{Name: "z-fails", Events: []string{"tools/call"}},
		func(context.Context, *host.Invocation) (host.Mutation, error) {
			return host.Mutation{}, errors.New("down")
		})
	future := host.Validator(host.Spec{Name: "future", Events: []string{"tools/call"}, Compat: &wire.Compat{MinProtocol: "2099-01-01"}},
		func(context.Context, *host.Invocation) (host.Verdict, error) {
			return host.Deny("from the future"), nil
		})
	tests := []struct {
		name      string
		ics       []host.Interceptor
		text      string
		want      string // the result's text, or "blocked <phase>"
		calls     int    // the calls the upstream got
		decisions string
	}{
		{"result mutated when received", []host.Interceptor{edit("mask", "tools/call", host.OnResponse, "secret", "[masked]")},
			"a secret", "said a [masked]", 1, "tools/call g:mask mutation response modified"},
		{"result validated before it is mutated", []host.Interceptor{
			edit("mask", "tools/call", host.OnResponse, "secret", "[masked]"),
			refuse("no-secrets", "tools/call", host.OnResponse, "secret", "a secret came back")},
			"a secret", "blocked response", 1, "tools/call g:no-secrets validation response blocked"},
		{"a mutation pass is atomic", []host.Interceptor{edit("a-edits", "tools/call", host.OnRequest, "hi", "ho"), fail},
			"hi", "blocked request", 0, "tools/call g:a-edits mutation request modified\ntools/call g:z-fails mutation request failed_closed"},
		{"compat range", []host.Interceptor{future}, "hi", "said hi", 1, "tools/call g:future validation request skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log decisionLog
			ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{inProcessHost(t, "g", tt.ics...)},
				Decisions: log.add, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer ch.Close()
			tool := &textTool{}
			cs := connectUpstream(t, tool.server(), ch)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "say", Arguments: textArgs{Text: tt.text}})
			got := ""
			var blocked *intercept.BlockedError
			switch {
			case errors.As(err, &blocked):
				got = "blocked " + string(blocked.Phase)
			case err != nil:
				t.Fatal(err)
			default:
				got = res.Content[0].(*mcp.TextContent).Text
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tool.calls != tt.calls {
				t.Errorf("the upstream got %d calls, want %d", tool.calls, tt.calls)
			}
			if log.String() != tt.decisions {
				t.Errorf("decisions:\n%s\nwant\n%s", log.String(), tt.decisions)
			}
		})
	}
}

// connectUpstream connects a client whose sending middleware is ch to
// srv, in memory.
func connectUpstream(t *testing.T, srv *mcp.Server, ch *intercept.Chain) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil)
	c.AddSendingMiddleware(ch.SendingMiddleware())
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// An interceptor of every event ("*") governs the context operations a
// client sends, and nothing else: initialize and ping are the SEP's
// negative space.
func TestChainNegativeSpace(t *testing.T) {
	ch, err := intercept.NewChain(context.Background(), intercept.Config{
		Servers: []intercept.Server{inProcessHost(t, "g", refuse("everything", "*", host.OnRequest, "", "nothing goes"))},
		Logger:  slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	cs := connectUpstream(t, (&textTool{}).server(), ch) // initialize went through
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	var blocked *intercept.BlockedError
	if _, err := cs.ListTools(context.Background(), nil); !errors.As(err, &blocked) {
		t.Errorf("tools/list: %v, want it blocked", err)
	}
}

// The receiving side governs the requests a server sends the client: the
// request is received (validate, then mutate), the client's answer sent
// (mutate, then validate).
func TestChainReceivingMiddleware(t *testing.T) {
	tests := []struct {
		prompt string
		want   string // what the server's tool got back from the client
	}{
		// Received: the validator sees the secret before the mutator
		// could redact it.
		{"tell me the secret", `sampling failed: calling "sampling/createMessage": the request was blocked by an interceptor`},
		// Sent: the answer is upper-cased before the validator, which
		// refuses a lowercase "hello", sees it.
		{"say hello", "model said HELLO"},
	}
	ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{inProcessHost(t, "g",
		edit("redact", "sampling/createMessage", host.OnRequest, "secret", "[redacted]"),
		refuse("no-secrets", "sampling/createMessage", host.OnRequest, "secret", "no secret goes to the model"),
		edit("shout", "sampling/createMessage", host.OnResponse, "hello", "HELLO"),
		refuse("no-lowercase-hello", "sampling/createMessage", host.OnResponse, "hello", "say it louder"),
	)}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()

	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}}})
		if err != nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sampling failed: " + err.Error()}}}, nil, nil
		}
		text := res.Content.(*mcp.TextContent).Text
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant",
				Content: &mcp.TextContent{Text: "model said " + strings.TrimPrefix(prompt, "say ")}}, nil
		}})
	c.AddReceivingMiddleware(ch.ReceivingMiddleware())
	// On 2026-07-28 a server asks for sampling in its result (SEP-2322);
	// on 2025-11-25 it sends the client the request.
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: textArgs{Text: tt.prompt}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Run refuses what is not a direction or a phase, and never blocks on a
// payload no interceptor hooks.
func TestChainRun(t *testing.T) {
	ch, err := intercept.NewChain(context.Background(), intercept.Config{
		Servers: []intercept.Server{inProcessHost(t, "g", refuse("no", "tools/call", host.OnRequest, "x", "no"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	payload := json.RawMessage(`{"method":"tools/call","params":{"name":"x"}}`)
	tests := []struct {
		name    string
		dir     intercept.Direction
		call    intercept.Call
		wantErr string
	}{
		{"no direction", 0, intercept.Call{Event: "tools/call", Phase: wire.Request, Payload: payload}, "Direction(0) is not a direction"},
		{"no phase", intercept.Send, intercept.Call{Event: "tools/call", Phase: "both", Payload: payload}, `unknown phase "both"`},
		{"blocked", intercept.Send, intercept.Call{Event: "tools/call", Phase: wire.Request, Payload: payload}, "the request was blocked by an interceptor"},
		{"not hooked", intercept.Send, intercept.Call{Event: "prompts/get", Phase: wire.Request, Payload: payload}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ch.Run(context.Background(), tt.dir, tt.call)
			if tt.wantErr == "" {
				if err != nil || string(p.Payload) != string(payload) || p.Modified {
					t.Errorf("Run: %+v, %v; want the payload unchanged", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Run: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// One chain serves concurrent calls: each call's request and result go
// through their own passes.
func TestChainConcurrentCalls(t *testing.T) {
	ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{inProcessHost(t, "g",
		edit("tag", "tools/call", host.OnRequest, "call-", "tagged-"),
		refuse("no-7", "tools/call", host.OnRequest, "tagged-7", "not seven"))}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	cs := connectUpstream(t, (&textTool{}).server(), ch)
	const n = 12
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "say", Arguments: textArgs{Text: "call-" + strconv.Itoa(i)}})
			var blocked *intercept.BlockedError
			switch {
			case errors.As(err, &blocked):
				got[i] = "blocked"
			case err != nil:
				got[i] = err.Error()
			default:
				got[i] = res.Content[0].(*mcp.TextContent).Text
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		want := "said tagged-" + strconv.Itoa(i)
		if i == 7 {
			want = "blocked"
		}
		if g != want {
			t.Errorf("call %d: %q, want %q", i, g, want)
		}
	}
}

// A chain reaches hosts as the plugin does: a command over stdio, and
// streamable HTTP behind a bearer token.
func TestChainOverEveryTransport(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		tests := []struct {
			serve []string
			want  string
		}{
			{[]string{"upper"}, "SAID HELLO"}, // the request upper-cased when sent, the result when received
			{[]string{"deny"}, "blocked"},
			// Mutators run in the SEP's order on both passes: hints c -10,
			// a 0, b 0 (then by name), d 7.
			{[]string{"tag-b", "tag-d", "tag-a", "tag-c"}, "said hello+c+a+b+d+c+a+b+d"},
		}
		for _, tt := range tests {
			t.Run(strings.Join(tt.serve, ","), func(t *testing.T) {
				ch, err := intercept.NewChain(context.Background(), intercept.Config{
					Servers: []intercept.Server{startHost(t, kind, "g", tt.serve...)}, Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					t.Fatal(err)
				}
				defer ch.Close()
				cs := connectUpstream(t, (&textTool{}).server(), ch)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "say", Arguments: textArgs{Text: "hello"}})
				got := ""
				var blocked *intercept.BlockedError
				switch {
				case errors.As(err, &blocked):
					got = "blocked"
				case err != nil:
					t.Fatal(err)
				default:
					got = res.Content[0].(*mcp.TextContent).Text
				}
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			})
		}
	})
}

// TestSendingMiddlewareUnhookedIsFree shows that a method no interceptor
// of the chain hooks passes through the sending middleware without being
// encoded: it allocates nothing more than calling the next handler.
func TestSendingMiddlewareUnhookedIsFree(t *testing.T) {
	ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{
		inProcessHost(t, "g", edit("reads", "resources/read", host.OnRequest, "a", "b"))}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	res := &mcp.CallToolResult{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	mw := ch.SendingMiddleware()(next)
	req := &mcp.ClientRequest[*mcp.CallToolParams]{Params: &mcp.CallToolParams{Name: "say", Arguments: map[string]any{"text": "hi"}}}
	ctx := context.Background()
	direct := testing.AllocsPerRun(100, func() { _, _ = next(ctx, "tools/call", req) })
	through := testing.AllocsPerRun(100, func() {
		if got, err := mw(ctx, "tools/call", req); err != nil || got != res {
			t.Fatalf("through the chain: %v, %v", got, err)
		}
	})
	if through != direct {
		t.Errorf("a tools/call no interceptor hooks allocates %v through the chain, %v without it", through, direct)
	}
}
