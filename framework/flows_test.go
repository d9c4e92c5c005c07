package framework_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// hooksCapability is what the session:initialize hook of the tests adds to
// the server's capabilities.
var hooksCapability = map[string]any{"version": "1"}

// initializeHook adds capabilities.experimental["hooks"] in afterExecute.
func initializeHook() flows.Hook {
	return flows.Hook{Flow: flows.SessionInitialize, Stage: stages.AfterExecute, Name: "declare-hooks", Fn: func(c *flows.Context) error {
		flows.Initialize{Context: c}.AddExperimental("hooks", hooksCapability)
		return nil
	}}
}

// newRecordingServer returns a server with the test entities, a recording
// hook on every stage of every flow, and the initialize hook.
func newRecordingServer(t testing.TB, rec *recorder) *framework.Server {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"}, nil)
	addEntities(t, srv)
	methods := flows.Hook{Flow: flows.SessionInitialize, Stage: stages.Finally, Name: "method", Fn: func(c *flows.Context) error {
		rec.add("method %s", c.Request().Method)
		return nil
	}}
	if err := srv.Hook(append(recordingHooks(rec), initializeHook(), methods)...); err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestEveryFlowRunsItsHooks runs every MCP method hookflow serves over each
// transport and checks which stages of its flow ran.
func TestEveryFlowRunsItsHooks(t *testing.T) {
	type call struct {
		name string
		flow flows.ID
		do   func(ctx context.Context, t *testing.T, cs *mcp.ClientSession)
	}
	calls := []call{
		{"tools/call", flows.ToolsCallTool, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || textOf(t, res) != `{"echo":"hi"}` {
				t.Fatalf("result = %+v", res)
			}
		}},
		{"tools/list", flows.ToolsListTools, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != 1 || res.Tools[0].Name != "echo" {
				t.Fatalf("tools = %+v", res.Tools)
			}
		}},
		{"resources/read resource", flows.ResourcesReadResource, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].Text != "static text" || res.Contents[0].MIMEType != "text/plain" {
				t.Fatalf("contents = %+v", res.Contents)
			}
		}},
		{"resources/read template", flows.ResourcesReadResource, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/42"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].Text != "item 42" {
				t.Fatalf("contents = %+v", res.Contents)
			}
		}},
		{"resources/list", flows.ResourcesListResources, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Resources) != 1 || res.Resources[0].URI != "test://static" {
				t.Fatalf("resources = %+v", res.Resources)
			}
		}},
		{"resources/templates/list", flows.ResourcesListResourceTemplates, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate != "test://items/{id}" {
				t.Fatalf("templates = %+v", res.ResourceTemplates)
			}
		}},
		{"prompts/get", flows.PromptsGetPrompt, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada!" {
				t.Fatalf("messages = %+v", res.Messages)
			}
		}},
		{"prompts/list", flows.PromptsListPrompts, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Prompts) != 1 || res.Prompts[0].Name != "greet" {
				t.Fatalf("prompts = %+v", res.Prompts)
			}
		}},
		{"completion/complete", flows.CompletionComplete, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if !equal(res.Completion.Values, []string{"Ada", "Alan"}) {
				t.Fatalf("completion = %+v", res.Completion)
			}
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			rec := &recorder{}
			srv := newRecordingServer(t, rec)
			cs := tr.connect(t, srv, nil)

			// session:initialize ran while connecting (initialize, or
			// server/discover on 2026-07-28), and its hook extended the
			// capabilities without losing the defaults.
			evs := rec.take()
			var want []string
			for range tr.connectMethods {
				want = append(want, okStages...)
			}
			if got := stagesOf(evs, flows.SessionInitialize); !equal(got, want) {
				t.Errorf("session:initialize stages = %v, want %v (all events: %v)", got, want, evs)
			}
			if got := stagesOf(evs, "method"); !equal(got, tr.connectMethods) {
				t.Errorf("session:initialize ran for %v, want %v", got, tr.connectMethods)
			}
			ir := cs.InitializeResult()
			if ir.ProtocolVersion != tr.protocol {
				t.Errorf("protocol = %q, want %q", ir.ProtocolVersion, tr.protocol)
			}
			caps := ir.Capabilities
			if caps == nil || caps.Experimental["hooks"] == nil {
				t.Fatalf("client sees no experimental.hooks capability: %+v", caps)
			}
			if got, ok := caps.Experimental["hooks"].(map[string]any); !ok || got["version"] != "1" {
				t.Errorf("experimental.hooks = %#v, want %v", caps.Experimental["hooks"], hooksCapability)
			}
			if caps.Logging == nil || caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil {
				t.Errorf("default capabilities lost: logging=%v tools=%v prompts=%v resources=%v completions=%v",
					caps.Logging, caps.Tools, caps.Prompts, caps.Resources, caps.Completions)
			}

			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					rec.take()
					c.do(ctx, t, cs)
					evs := rec.take()
					if got := stagesOf(evs, c.flow); !equal(got, okStages) {
						t.Errorf("%s stages = %v, want %v (all events: %v)", c.flow, got, okStages, evs)
					}
				})
			}
		})
	}
}

// TestFailedRunStages checks that a failing run goes through onError and
// finally, over a real session: a validation failure, a failing tool, and a
// protocol-level failure in a list flow.
func TestFailedRunStages(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	srv := newRecordingServer(t, rec)
	if err := srv.Hook(flows.Hook{Flow: flows.PromptsListPrompts, Stage: stages.BeforeExecute, Name: "deny", Fn: func(c *flows.Context) error {
		return c.Abort(nil)
	}}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	rec.take()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("invalid arguments: res=%+v err=%v", res, err)
	}
	if got := stagesOf(rec.take(), flows.ToolsCallTool); !equal(got, validationFails) {
		t.Errorf("validation failure stages = %v, want %v", got, validationFails)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "fail"}})
	if err != nil || !res.IsError {
		t.Fatalf("failing tool: res=%+v err=%v", res, err)
	}
	want := []string{"beforeValidation", "afterValidation", "beforeExecute", "onError", "finally"}
	if got := stagesOf(rec.take(), flows.ToolsCallTool); !equal(got, want) {
		t.Errorf("failing tool stages = %v, want %v", got, want)
	}

	_, err = cs.ListPrompts(ctx, nil)
	wantProtocolError(t, err, framework.CodeRefused, "aborted by hook")
	if got := stagesOf(rec.take(), flows.PromptsListPrompts); !equal(got, want) {
		t.Errorf("denied list stages = %v, want %v", got, want)
	}
}
