package framework_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// rawCall sends one JSON-RPC request over conn and returns its response.
func rawCall(t *testing.T, conn mcp.Connection, id int, method string, params any) *jsonrpc.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	rid, _ := jsonrpc.MakeID(float64(id))
	if err := conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: raw}); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("reading the answer to %s: %v", method, err)
		}
		if r, ok := msg.(*jsonrpc.Response); ok && r.ID == rid {
			return r
		}
	}
}

func wireCode(r *jsonrpc.Response) int64 {
	if e, ok := r.Error.(*jsonrpc.Error); ok {
		return e.Code
	}
	return 0
}

// A second initialize on a session is an invalid request (-32600), with or
// without initialize hooks (it was 0 or -32603).
func TestSecondInitialize(t *testing.T) {
	for _, hooked := range []bool{false, true} {
		srv := framework.NewServer(&mcp.Implementation{Name: "init", Version: "v1"}, nil)
		if hooked {
			must(t, srv.Hook(flows.On(stages.AfterExecute, func(flows.Initialize) error { return nil }).Named("see")))
		}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		conn, err := ct.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		init := map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}
		if r := rawCall(t, conn, 1, "initialize", init); r.Error != nil {
			t.Fatalf("first initialize: %v", r.Error)
		}
		r := rawCall(t, conn, 2, "initialize", init)
		if got := wireCode(r); got != jsonrpc.CodeInvalidRequest {
			t.Errorf("hooks=%v: second initialize: code %d (%v), want %d", hooked, got, r.Error, jsonrpc.CodeInvalidRequest)
		}
		conn.Close()
	}
}

// Completion for a prompt or resource the server does not know is invalid
// params (-32602), not an empty answer.
func TestCompletionOfAnUnknownRef(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "complete", Version: "v1"}, nil)
	must(t, framework.AddPromptFunc(srv, &mcp.Prompt{Name: "known", Arguments: []*mcp.PromptArgument{{Name: "a"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		}))
	cs := inMemory("")(t, srv, nil)
	ctx := context.Background()
	for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "nope"}, {Type: "ref/resource", URI: "test://nope"}} {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "x"}})
		wantProtocolError(t, err, -32602, "unknown")
	}
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "known"}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "x"}}); err != nil {
		t.Errorf("known prompt: %v", err)
	}
}

// On protocols before 2026-07-28 the client cannot answer an
// input-required result: hookflow asks it for the inputs and calls the tool
// again inside the same execute step, so the call's flow (and its finally)
// runs once, however many rounds the tool needs.
func TestInputRoundsRunTheFlowOnce(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "mrtr", Version: "v1"}, nil)
	var executes, finals atomic.Int32
	must(t, framework.AddToolFunc(srv, &mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, error) {
			executes.Add(1)
			ask := func(state string) *mcp.CallToolResult {
				return &mcp.CallToolResult{RequestState: state, InputRequests: mcp.InputRequestMap{
					"q": &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
				}}
			}
			switch req.Params.RequestState {
			case "":
				return ask("round-1"), nil
			case "round-1":
				return ask("round-2"), nil
			}
			r, _ := req.Params.InputResponses["q"].(*mcp.ElicitResult)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %v after %s", r.Content["name"], req.Params.RequestState)}}}, nil
		}))
	must(t, srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "count", Fn: func(*flows.Context) error {
		finals.Add(1)
		return nil
	}}))
	copts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	cs := inMemory("2025-11-25")(t, srv, copts)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "hello Ada after round-2" {
		t.Errorf("result = %q", got)
	}
	if e, f := executes.Load(), finals.Load(); e != 3 || f != 1 {
		t.Errorf("the tool ran %d times (want 3 rounds), finally %d times (want 1)", e, f)
	}
}

// A panic outside any flow (here in a subscribe handler the SDK calls)
// reaches the client as a fixed text and an ID; its value, which may hold
// secrets, goes to the log under that ID.
func TestPanicOutsideAFlowHidesItsValue(t *testing.T) {
	var logged strings.Builder
	srv := framework.NewServer(&mcp.Implementation{Name: "panic", Version: "v1"}, &framework.Options{
		Logger: slog.New(slog.NewTextHandler(&logged, nil)),
		Subscribe: func(context.Context, *mcp.SubscribeRequest) error {
			panic("dsn=postgres://u:pw@h")
		},
		Unsubscribe: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	must(t, framework.AddResourceFunc(srv, &mcp.Resource{URI: "test://r", Name: "r"}, nil,
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		}))
	cs := inMemory("2025-11-25")(t, srv, nil)
	err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://r"})
	if err == nil || strings.Contains(err.Error(), "pw@h") || !strings.Contains(err.Error(), "internal error (request ") {
		t.Fatalf("Subscribe = %v", err)
	}
	if !strings.Contains(logged.String(), "pw@h") {
		t.Errorf("the panic value is not in the log: %s", logged.String())
	}
}
