package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

type guardIn struct {
	Mode string `json:"mode"`
}

type defaultsIn struct {
	Greeting string `json:"greeting,omitempty"`
}

// newBadInputServer is the test server plus:
//   - "guarded", whose beforeExecute hook fails as its "mode" says;
//   - "defaults", whose input schema gives "greeting" a default;
//   - "rpc", a tool that returns a *jsonrpc.Error;
//   - a prompts:get-prompt hook that panics for name "panic".
func newBadInputServer(t testing.TB) *framework.Server {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "bad-input", Version: "1"}, nil)
	addEntities(t, srv)
	err := errors.Join(
		framework.AddToolFunc(srv, &mcp.Tool{Name: "guarded"}, func(ctx context.Context, req *mcp.CallToolRequest, in guardIn) (echoOut, error) {
			return echoOut{Echo: "ran " + in.Mode}, nil
		}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "defaults", InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"greeting": {Type: "string", Default: json.RawMessage(`"hello"`)},
			},
		}}, func(ctx context.Context, req *mcp.CallToolRequest, in defaultsIn) (echoOut, error) {
			return echoOut{Echo: in.Greeting}, nil
		}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "rpc"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (echoOut, error) {
			return echoOut{}, &jsonrpc.Error{Code: -32043, Message: "tool says no"}
		}),
		srv.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "guard", Fn: func(c *flows.Context) error {
				in := flows.As[flows.ToolCall[guardIn, echoOut]](c).Input()
				if in == nil {
					return nil // another tool
				}
				switch in.Mode {
				case "error":
					return errors.New("blocked by policy")
				case "abort":
					return c.Abort(errors.New("aborted: not today"))
				case "rpc":
					return &jsonrpc.Error{Code: -32042, Message: "hook says no"}
				case "wrapped-rpc":
					return errors.Join(errors.New("context"), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad mode"})
				case "panic":
					panic("hook panicked on purpose")
				}
				return nil
			}},
			flows.Hook{Flow: flows.PromptsGetPrompt, Stage: stages.BeforeExecute, Name: "panicky", Fn: func(c *flows.Context) error {
				if (flows.PromptGet{Context: c}).Arguments()["name"] == "panic" {
					panic("prompt hook panicked on purpose")
				}
				return nil
			}},
			flows.Hook{Flow: flows.ResourcesReadResource, Stage: stages.BeforeExecute, Name: "deny", Fn: func(c *flows.Context) error {
				if (flows.ResourceRead{Context: c}).URI() == "test://items/denied" {
					return errors.New("denied by hook")
				}
				return nil
			}},
		),
	)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// result is what a client got for one request.
type result struct {
	tool *mcp.CallToolResult
	err  error
}

func TestBadInput(t *testing.T) {
	call := func(name string, args any) func(context.Context, *mcp.ClientSession) result {
		return func(ctx context.Context, cs *mcp.ClientSession) result {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			return result{res, err}
		}
	}
	getPrompt := func(name string, args map[string]string) func(context.Context, *mcp.ClientSession) result {
		return func(ctx context.Context, cs *mcp.ClientSession) result {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
			return result{err: err}
		}
	}
	read := func(uri string) func(context.Context, *mcp.ClientSession) result {
		return func(ctx context.Context, cs *mcp.ClientSession) result {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			return result{err: err}
		}
	}
	cases := []struct {
		name string
		do   func(context.Context, *mcp.ClientSession) result
		// Exactly one of these describes the answer.
		protocolCode int64  // a protocol error with this code…
		errorText    string // …whose message contains this; or an isError result with this text
		okText       string // or a successful result with this text
		hidden       string // text the client must never read (a panic's value)
	}{
		{name: "unknown tool", do: call("nope", nil), protocolCode: -32602, errorText: `unknown tool "nope"`},
		{name: "unknown prompt", do: getPrompt("nope", nil), protocolCode: -32602, errorText: `unknown prompt "nope"`},
		{name: "unknown resource", do: read("test://nope"), protocolCode: -32602, errorText: "Resource not found"},
		{name: "argument of the wrong type", do: call("echo", map[string]any{"text": 3}), errorText: `validating "arguments": validating root: validating /properties/text: type: 3 has type "integer", want "string"`},
		{name: "missing argument", do: call("echo", map[string]any{}), errorText: `missing properties: ["text"]`},
		{name: "unexpected argument", do: call("echo", map[string]any{"text": "x", "extra": 1}), errorText: `unexpected additional properties ["extra"]`},
		{name: "arguments not an object", do: call("echo", []int{1}), errorText: `validating "arguments": unmarshaling arguments`},
		{name: "arguments null, field required", do: call("echo", json.RawMessage("null")), errorText: `missing properties: ["text"]`},
		{name: "arguments null, defaults apply", do: call("defaults", json.RawMessage("null")), okText: `{"echo":"hello"}`},
		{name: "arguments omitted, defaults apply", do: call("defaults", nil), okText: `{"echo":"hello"}`},
		{name: "hook error", do: call("guarded", map[string]any{"mode": "error"}), errorText: "blocked by policy"},
		{name: "hook abort", do: call("guarded", map[string]any{"mode": "abort"}), errorText: "aborted: not today"},
		{name: "hook returns *jsonrpc.Error", do: call("guarded", map[string]any{"mode": "rpc"}), protocolCode: -32042, errorText: "hook says no"},
		{name: "hook returns a wrapped *jsonrpc.Error", do: call("guarded", map[string]any{"mode": "wrapped-rpc"}), protocolCode: -32602, errorText: "bad mode"},
		// A panic's value may hold secrets: the client reads a fixed text and
		// the request ID; the value and stack go to the log.
		{name: "hook panics", do: call("guarded", map[string]any{"mode": "panic"}), errorText: "internal error (request ", hidden: "panicked on purpose"},
		{name: "tool fails", do: call("echo", map[string]any{"text": "fail"}), errorText: "echo failed on purpose"},
		{name: "tool panics", do: call("echo", map[string]any{"text": "panic"}), errorText: "internal error (request ", hidden: "panicked on purpose"},
		{name: "tool returns *jsonrpc.Error", do: call("rpc", nil), protocolCode: -32043, errorText: "tool says no"},
		{name: "missing required prompt argument", do: getPrompt("greet", nil), protocolCode: -32602, errorText: `missing required argument "name"`},
		{name: "prompt hook panics", do: getPrompt("greet", map[string]string{"name": "panic"}), protocolCode: -32603, errorText: "internal error (request ", hidden: "panicked on purpose"},
		// A hook's refusal is not an internal error.
		{name: "resource hook error", do: read("test://items/denied"), protocolCode: framework.CodeRefused, errorText: "denied by hook"},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			cs := tr.connect(t, newBadInputServer(t), nil)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					got := c.do(ctx, cs)
					if c.hidden != "" {
						if got.err != nil && strings.Contains(got.err.Error(), c.hidden) {
							t.Errorf("the client read %q", got.err)
						}
						if got.tool != nil && strings.Contains(textOf(t, got.tool), c.hidden) {
							t.Errorf("the client read %q", textOf(t, got.tool))
						}
					}
					switch {
					case c.protocolCode != 0:
						wantProtocolError(t, got.err, c.protocolCode, c.errorText)
					case got.err != nil:
						t.Fatalf("want a result, got the protocol error %v", got.err)
					case c.okText != "":
						if got.tool.IsError || textOf(t, got.tool) != c.okText {
							t.Fatalf("result = isError %v %q, want %q", got.tool.IsError, textOf(t, got.tool), c.okText)
						}
					default:
						if !got.tool.IsError {
							t.Fatalf("want an isError result, got %q", textOf(t, got.tool))
						}
						if text := textOf(t, got.tool); !strings.Contains(text, c.errorText) {
							t.Fatalf("isError text %q does not contain %q", text, c.errorText)
						}
						if strings.Contains(textOf(t, got.tool), "hookflow:") {
							t.Errorf("isError text %q carries hookflow's location prefix; the model should read the reason only", textOf(t, got.tool))
						}
					}
					// Whatever happened, the server answers the next request.
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "alive"}})
					if err != nil || res.IsError || textOf(t, res) != `{"echo":"alive"}` {
						t.Fatalf("next request: res=%+v err=%v", res, err)
					}
				})
			}
		})
	}
}
