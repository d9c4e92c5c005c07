package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// The conformance suite itself runs in .ci/run (.ci/conformance.sh); these
// tests check a few behaviours in-process, over both protocol generations,
// and that the hookcount plugin saw every flow.

// client records what the server sends a test client.
type client struct {
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	logs     []*mcp.LoggingMessageParams
	updated  chan string
	toolsLC  chan struct{}
}

func newClient() *client {
	return &client{updated: make(chan string, 16), toolsLC: make(chan struct{}, 16)}
}

func (c *client) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			content := map[string]any{"name": "Alice", "username": "alice", "context": "tests", "color": "blue", "ok": true}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params)
			c.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			c.mu.Lock()
			c.logs = append(c.logs, req.Params)
			c.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case c.updated <- req.Params.URI:
			default:
			}
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.toolsLC <- struct{}{}:
			default:
			}
		},
	}
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError: %s", name, text(t, res))
	}
	return text(t, res)
}

func TestEverything(t *testing.T) {
	srv, counts, err := newServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go updateWatched(ctx, srv.SDK(), watchedURI, 10*time.Millisecond)

	// Protocol 2025-11-25 over in-memory transports: sessions, logging/setLevel,
	// subscriptions and real server-to-client requests.
	t.Run("stateful", func(t *testing.T) {
		c := newClient()
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(t.Context(), st, nil); err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, c.options())
		client.AddRoots(&mcp.Root{URI: "file:///workspace", Name: "workspace"})
		cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if err := cs.Ping(t.Context(), nil); err != nil {
			t.Errorf("ping: %v", err)
		}

		caps := cs.InitializeResult().Capabilities
		if caps.Logging == nil || caps.Completions == nil || caps.Tools == nil || caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil {
			t.Errorf("capabilities lost a default: %+v", caps)
		}
		if _, ok := caps.Experimental["hookflow"]; !ok {
			t.Errorf("capabilities.experimental has no hooks: %v", caps.Experimental)
		}

		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
			if tool.Description == "" || tool.InputSchema == nil {
				t.Errorf("tool %s: no description or input schema", tool.Name)
			}
		}
		if len(names) != 28 || !slices.IsSorted(names) {
			t.Errorf("tools/list: got %d tools %v, want 28, sorted", len(names), names)
		}

		if got := callText(t, cs, "test_simple_text", nil); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text: %q", got)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "test_error_handling", Arguments: map[string]any{}})
		if err != nil || !res.IsError || text(t, res) != "this tool intentionally returns an error for testing" {
			t.Errorf("test_error_handling: %v %+v", err, res)
		}
		_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown tool: got %v, want -32602", err)
		}

		// Progress and logs.
		p := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
		p.SetProgressToken("progress-test-1")
		if got := callText(t, cs, p.Name, nil); got != "<nil>" {
			t.Errorf("test_tool_with_progress without a token: %q", got)
		}
		res, err = cs.CallTool(t.Context(), p)
		if err != nil || text(t, res) != "progress-test-1" {
			t.Fatalf("test_tool_with_progress: %v %+v", err, res)
		}
		if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		callText(t, cs, "test_tool_with_logging", nil)
		// The server writes them before the result, but the client may
		// dispatch notifications after it returns the result: wait a little.
		var tokened, logs int
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			c.mu.Lock()
			tokened, logs = 0, len(c.logs)
			for _, n := range c.progress {
				if n.ProgressToken == "progress-test-1" {
					tokened++
				}
			}
			c.mu.Unlock()
			if tokened >= 3 && logs >= 3 {
				break
			}
		}
		if tokened != 3 || logs != 3 {
			t.Errorf("got %d progress notifications with the token (want 3), %d logs (want 3)", tokened, logs)
		}

		// Server-to-client requests, and MRTR fulfilled by the SDK in-request.
		if got := callText(t, cs, "test_sampling", map[string]any{"prompt": "capital?"}); got != "LLM response: Paris" {
			t.Errorf("test_sampling: %q", got)
		}
		if got := callText(t, cs, "test_elicitation", map[string]any{"message": "who?"}); !strings.Contains(got, "action=accept") {
			t.Errorf("test_elicitation: %q", got)
		}
		if got := callText(t, cs, "test_input_required_result_elicitation", nil); got != "Hello, Alice!" {
			t.Errorf("MRTR elicitation on 2025-11-25: %q", got)
		}
		if got := callText(t, cs, "test_input_required_result_list_roots", nil); got != "Client exposed 1 root(s): file:///workspace" {
			t.Errorf("MRTR roots on 2025-11-25: %q", got)
		}

		// Resources, the template, subscriptions and the watched resource.
		rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://template/123/data"})
		if err != nil || !strings.Contains(rr.Contents[0].Text, `"id": "123"`) {
			t.Errorf("template read: %v %+v", err, rr)
		}
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://nonexistent"}); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown resource: got %v, want -32602", err)
		}
		if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: watchedURI}); err != nil {
			t.Fatal(err)
		}
		select {
		case uri := <-c.updated:
			if uri != watchedURI {
				t.Errorf("resource updated: %q", uri)
			}
		case <-time.After(5 * time.Second):
			t.Error("no notifications/resources/updated after subscribing")
		}
		if err := cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
			t.Fatal(err)
		}

		// Prompts and completion.
		gp, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "v1", "arg2": "v2"}})
		if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "Prompt with arguments: arg1='v1', arg2='v2'" {
			t.Errorf("prompt with arguments: %v %+v", err, gp)
		}
		cr, err := cs.Complete(t.Context(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "test"},
		})
		if err != nil || cr.Completion.Values == nil || len(cr.Completion.Values) != 0 {
			t.Errorf("complete: %v %+v", err, cr)
		}
		if _, err := cs.ListResources(t.Context(), nil); err != nil {
			t.Error(err)
		}
		if _, err := cs.ListResourceTemplates(t.Context(), nil); err != nil {
			t.Error(err)
		}
		if _, err := cs.ListPrompts(t.Context(), nil); err != nil {
			t.Error(err)
		}

		// The trigger adds a tool at run time; clients hear of it.
		callText(t, cs, "test_trigger_tool_change", nil)
		select {
		case <-c.toolsLC:
		case <-time.After(5 * time.Second):
			t.Error("no notifications/tools/list_changed after test_trigger_tool_change")
		}
		callText(t, cs, transientToolName, map[string]any{})
	})

	// Protocol 2026-07-28 over stateless streamable HTTP: MRTR round trips
	// through the client, -32021, and server/discover.
	t.Run("stateless-http", func(t *testing.T) {
		h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		defer ts.Close()
		c := newClient()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, c.options()).
			Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/any/path"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Errorf("protocol %q, want 2026-07-28", v)
		}
		if _, ok := cs.InitializeResult().Capabilities.Experimental["hookflow"]; !ok {
			t.Errorf("discover: capabilities.experimental has no hooks")
		}
		if got := callText(t, cs, "test_input_required_result_multi_round", nil); got != "Multi-round complete: Alice likes blue" {
			t.Errorf("multi-round: %q", got)
		}
		if got := callText(t, cs, "test_input_required_result_sampling", nil); got != "Sampling response: Paris" {
			t.Errorf("MRTR sampling: %q", got)
		}
		gp, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
		if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "Context: tests" {
			t.Errorf("MRTR prompt: %v %+v", err, gp)
		}
		if got := callText(t, cs, "test_missing_capability", nil); !strings.Contains(got, "tool executed") {
			t.Errorf("test_missing_capability with sampling: %q", got)
		}
		if got := callText(t, cs, "json_schema_2020_12_tool", map[string]any{"name": "a", "email": "b@c"}); got != `JSON Schema 2020-12 tool called with: {"email":"b@c","name":"a"}` {
			t.Errorf("json_schema_2020_12_tool: %q", got)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "json_schema_2020_12_tool", Arguments: map[string]any{}})
		if err != nil || !res.IsError || !strings.HasPrefix(text(t, res), `validating "arguments": `) {
			t.Errorf("json_schema_2020_12_tool with {}: %v %+v", err, res)
		}
		rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://static-binary"})
		if err != nil || string(rr.Contents[0].Blob) != string(pngData) {
			t.Errorf("static-binary: %v %+v", err, rr)
		}
		callText(t, cs, "test_trigger_prompt_change", nil)
		if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: transientPromptName}); err != nil {
			t.Errorf("transient prompt: %v", err)
		}
	})

	// Every flow ran through its hooks, and each run passed every stage it
	// reached.
	for _, f := range flows.All() {
		runs := counts.Runs(f.ID)
		if runs == 0 {
			t.Errorf("flow %s: the hooks never ran", f.ID)
		}
		if b := counts.Count(f.ID, stages.BeforeValidation); b != runs {
			t.Errorf("flow %s: %d beforeValidation, %d finally", f.ID, b, runs)
		}
	}
	if counts.Count(flows.ToolsCallTool, stages.OnError) == 0 {
		t.Error("tools:call-tool onError hook never ran (test_error_handling fails)")
	}
	t.Log("\n" + counts.Table())
}
