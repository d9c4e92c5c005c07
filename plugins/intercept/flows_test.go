package intercept_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

// Interceptors reach every flow whose method they hook, with the SEP's
// payloads, and their changes reach the flow: a list's result, a
// resource's URI (the request's params, changed in place), a prompt's
// result. The host runs in-process here, over loopback HTTP.
// (The name "next" is one of plugintest's tools.)
func TestOtherFlows(t *testing.T) {
	edit := func(name, event string, phases host.Phases, from, to string) host.Interceptor {
		return host.Mutator(host.Spec{Name: name, Events: []string{event}, Phases: phases},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				if !strings.Contains(string(inv.Payload), from) {
					return host.Unchanged(), nil
				}
				return host.Replace(json.RawMessage(strings.ReplaceAll(string(inv.Payload), from, to))), nil
			})
	}
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
