package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// The test tools that [AddTools] adds (a prefix may precede each name).
const (
	// ToolEcho returns its input {"text": …} unchanged as structured output;
	// it is annotated read-only and idempotent. See [EchoText].
	ToolEcho = "echo"
	// ToolFail always fails with the error "fail: <text>", so the client
	// sees isError; it is annotated read-only and idempotent too.
	ToolFail = "fail"
	// ToolPanic panics; the client sees isError.
	ToolPanic = "panic"
	// ToolNext returns {"n": …}, a number that grows with every call that
	// executes; it has no annotations (not idempotent).
	ToolNext = "next"
)

// Text is the input of the test tools, and the output of [ToolEcho].
type Text struct {
	Text string `json:"text" jsonschema:"any text"`
}

// Count is the output of [ToolNext].
type Count struct {
	N int64 `json:"n"`
}

// EchoText returns the text of [ToolEcho]'s result for input text: its
// structured output as JSON.
func EchoText(text string) string {
	b, _ := json.Marshal(Text{Text: text})
	return string(b)
}

// AddTools adds the test tools to r (a server or an app), each name
// prefixed with prefix.
func AddTools(r framework.Registrar, prefix string) error {
	pure := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	var n atomic.Int64
	return errors.Join(
		framework.AddToolFunc(r, &mcp.Tool{Name: prefix + ToolEcho, Description: "echoes its text", Annotations: pure},
			func(ctx context.Context, req *mcp.CallToolRequest, in Text) (Text, error) { return in, nil }),
		framework.AddToolFunc(r, &mcp.Tool{Name: prefix + ToolFail, Description: "always fails", Annotations: pure},
			func(ctx context.Context, req *mcp.CallToolRequest, in Text) (Text, error) {
				return Text{}, errors.New("fail: " + in.Text)
			}),
		framework.AddToolFunc(r, &mcp.Tool{Name: prefix + ToolPanic, Description: "always panics"},
			func(ctx context.Context, req *mcp.CallToolRequest, in Text) (Text, error) {
				panic("plugintest: panic tool called with " + in.Text)
			}),
		framework.AddToolFunc(r, &mcp.Tool{Name: prefix + ToolNext, Description: "counts its calls"},
			func(ctx context.Context, req *mcp.CallToolRequest, in Text) (Count, error) {
				return Count{N: n.Add(1)}, nil
			}),
	)
}
