package intercept_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

// edit is a mutator of event in phases that replaces from with to in the
// payload's JSON.
func edit(name, event string, phases host.Phases, from, to string) host.Interceptor {
	return host.Mutator(host.Spec{Name: name, Events: []string{event}, Phases: phases},
		func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
			if !strings.Contains(string(inv.Payload), from) {
				return host.Unchanged(), nil
			}
			return host.Replace(json.RawMessage(strings.ReplaceAll(string(inv.Payload), from, to))), nil
		})
}

// refuse is a validator of event in phases that denies, with reason, a
// payload whose JSON holds word.
func refuse(name, event string, phases host.Phases, word, reason string) host.Interceptor {
	return host.Validator(host.Spec{Name: name, Events: []string{event}, Phases: phases},
		func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
			if strings.Contains(string(inv.Payload), word) {
				return host.Deny(reason), nil
			}
			return host.Allow(), nil
		})
}

// Interceptors reach every flow whose method they hook, with the SEP's
// payloads, and their changes reach the flow: a list's result, a
// resource's URI (the request's params, changed in place), a prompt's
// result. The host runs in-process here, over loopback HTTP.
// (The name "next" is one of plugintest's tools.)
func TestOtherFlows(t *testing.T) {
	seen := make(chan string, 16)
	record := host.Validator(host.Spec{Name: "record", Events: []string{"resources/*", "prompts/get"}},
		func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
			seen <- string(inv.Payload)
			return host.Allow(), nil
		})
	h, err := host.Handler(host.Config{Interceptors: []host.Interceptor{
		edit("hide-next", "tools/list", host.OnResponse, `"name":"next"`, `"name":"hidden"`),
		edit("reroute", "resources/read", host.OnRequest, "test://a", "test://b"),
		edit("polite", "prompts/get", host.OnResponse, "hello", "good day"),
		record,
	}}, host.Serve{Verify: host.Token("t")})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	p := intercept.New(intercept.Config{Servers: []intercept.Server{{Name: "g", URL: ts.URL, Token: "t"}}})
	defer p.Close()
	hs := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}, Setup: func(s *framework.Server) error {
		if err := framework.AddResourceFunc(s, nil, &mcp.ResourceTemplate{Name: "doc", URITemplate: "test://{x}"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "read " + req.Params.URI}}}, nil
			}); err != nil {
			return err
		}
		return framework.AddPromptFunc(s, &mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
		})
	}})
	names := strings.Join(hs.ToolNames(), ",")
	if !strings.Contains(names, "hidden") || strings.Contains(names, ",next") || strings.HasPrefix(names, "next") {
		t.Errorf("tools/list through the interceptor: %s", names)
	}
	cs := hs.Session().Client()
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; got != "read test://b" {
		t.Errorf("resources/read: %q, want the rerouted URI", got)
	}
	// A request is received: validated before it is mutated, so the
	// validator saw the URI the client sent.
	if got := <-seen; !strings.HasPrefix(got, `{"method":"resources/read","params":{`) || !strings.Contains(got, `"uri":"test://a"`) {
		t.Errorf("the validator saw %s", got)
	}
	gp, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	if got := gp.Messages[0].Content.(*mcp.TextContent).Text; got != "good day" {
		t.Errorf("prompts/get: %q", got)
	}
	if got := <-seen; !strings.HasPrefix(got, `{"method":"prompts/get","params":{`) || !strings.Contains(got, `"name":"greet"`) {
		t.Errorf("the validator saw %s", got)
	}
}

// Requests a server sends its client (sampling, elicitation, roots) cross
// the trust boundary the other way: hookflow sends the request, so its
// mutators run before its validators (the validator here passes only the
// redacted prompt), and receives the result, so its validators run before
// its mutators (the recorder sees the root the client sent, the tool the
// rewritten one). A validator on elicitation/create refuses the request
// before it reaches the client.
func TestRequestsToTheClient(t *testing.T) {
	seen := make(chan string, 4)
	h, err := host.Handler(host.Config{Interceptors: []host.Interceptor{
		edit("redact", "sampling/createMessage", host.OnRequest, "secret", "[redacted]"),
		refuse("no-secrets", "sampling/createMessage", host.OnRequest, "secret", "a secret would reach the model"),
		host.Validator(host.Spec{Name: "record-roots", Events: []string{"roots/list"}, Phases: host.OnResponse},
			func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
				seen <- string(inv.Payload)
				return host.Allow(), nil
			}),
		edit("hide-root", "roots/list", host.OnResponse, "file:///private", "file:///hidden"),
		refuse("no-passwords", "elicitation/create", host.OnRequest, "password", "never ask for a password"),
	}}, host.Serve{Verify: host.Token("t")})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	p := intercept.New(intercept.Config{Servers: []intercept.Server{{Name: "g", URL: ts.URL, Token: "t"}}})
	defer p.Close()

	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	type none struct{}
	type said struct {
		Text string `json:"text"`
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(framework.AddToolFunc(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (said, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "tell me the secret"}}}})
		if err != nil {
			return said{}, err
		}
		return said{Text: res.Content.(*mcp.TextContent).Text}, nil
	}))
	check(framework.AddToolFunc(srv, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (said, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return said{}, err
		}
		return said{Text: res.Roots[0].URI}, nil
	}))
	check(framework.AddToolFunc(srv, &mcp.Tool{Name: "elicit"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (said, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "your password?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`)})
		if err != nil {
			return said{}, err
		}
		return said{Text: res.Action}, nil
	}))
	check(srv.Use(p))
	check(srv.Start())

	prompts := make(chan string, 1)
	var elicited atomic.Bool
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	check(err)
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompts <- req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "42"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited.Store(true)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"p": "hunter2"}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///private", Name: "private"})
	// On 2026-07-28 a tool asks its client through input requests (SEP-2322),
	// not with requests of its own: the session speaks 2025-11-25.
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	check(err)
	defer cs.Close()

	call := func(name string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		check(err)
		return res
	}
	text := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}

	if res := call("ask"); res.IsError || !strings.Contains(text(res), "42") {
		t.Errorf("ask: %s (isError %v): the sampling request, mutated then validated, should pass", text(res), res.IsError)
	}
	if got := receive(t, prompts); got != "tell me the [redacted]" {
		t.Errorf("the client was asked %q", got)
	}
	if res := call("roots"); res.IsError || !strings.Contains(text(res), "file:///hidden") {
		t.Errorf("roots: %s (isError %v), want the rewritten root", text(res), res.IsError)
	}
	if got := receive(t, seen); !strings.Contains(got, "file:///private") {
		t.Errorf("the roots validator saw %s, want the root the client sent", got)
	}
	if res := call("elicit"); !res.IsError {
		t.Errorf("elicit: %s, want the tool to fail: the request was refused", text(res))
	}
	if elicited.Load() {
		t.Error("the refused elicitation reached the client")
	}
}

// receive returns the next value of c, failing the test after ten seconds
// without one.
func receive(t *testing.T, c <-chan string) string {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received in ten seconds")
		return ""
	}
}
