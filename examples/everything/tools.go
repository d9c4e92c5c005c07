package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// The tools of the conformance server. Tools whose input is any take any
// JSON object (input schema {"type":"object"}); all of them build their
// whole result, so their output type is *mcp.CallToolResult.

const (
	// pngBase64 is a 1×1 red PNG.
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	// wavBase64 is a minimal silent WAV.
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// pngData and wavData are the decoded media; the SDK base64-encodes them
// again on the wire.
var (
	pngData = mustDecode(pngBase64)
	wavData = mustDecode(wavBase64)
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// textResult is a result with one text item.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// ---------------------------------------------------------------- content

// SimpleText answers with one text item.
//
//mcp:tool name=test_simple_text description="Tests simple text content response"
type SimpleText struct{}

// Execute answers.
func (SimpleText) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return textResult("This is a simple text response for testing."), nil
}

// ImageContent answers with a PNG image.
//
//mcp:tool name=test_image_content description="Tests image content response"
type ImageContent struct{}

// Execute answers.
func (ImageContent) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngData, MIMEType: "image/png"}}}, nil
}

// AudioContent answers with a WAV clip.
//
//mcp:tool name=test_audio_content description="Tests audio content response"
type AudioContent struct{}

// Execute answers.
func (AudioContent) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavData, MIMEType: "audio/wav"}}}, nil
}

// EmbeddedResource answers with an embedded text resource.
//
//mcp:tool name=test_embedded_resource description="Tests embedded resource content response"
type EmbeddedResource struct{}

// Execute answers.
func (EmbeddedResource) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource",
	}}}}, nil
}

// MultipleContentTypes answers with text, an image and a resource.
//
//mcp:tool name=test_multiple_content_types description="Tests response with multiple content types (text, image, resource)"
type MultipleContentTypes struct{}

// Execute answers.
func (MultipleContentTypes) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "This is text content"},
		&mcp.ImageContent{Data: pngData, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://embedded-in-multiple", MIMEType: "text/plain", Text: "This is an embedded resource",
		}},
	}}, nil
}

// ---------------------------------------------------------------- logging, progress, errors

// ToolWithLogging sends three log messages, 50 ms apart, before answering.
// The SDK sends them only at the level the client asked for (logging/setLevel
// or, on 2026-07-28, the request's _meta log level).
//
//mcp:tool name=test_tool_with_logging description="Tests tool that emits log messages during execution"
type ToolWithLogging struct{}

// Execute logs and answers.
func (ToolWithLogging) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			sleep(ctx, 50*time.Millisecond)
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg})
	}
	return textResult("Tool with logging executed successfully"), nil
}

// ToolWithProgress reports progress 0, 50 and 100 of 100, 50 ms apart, and
// answers with the progress token. Like the reference server it notifies
// even when the client sent no token.
//
//mcp:tool name=test_tool_with_progress description="Tests tool that reports progress notifications"
type ToolWithProgress struct{}

// Execute reports and answers.
func (ToolWithProgress) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	for _, p := range []float64{0, 50, 100} {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", p),
		})
		sleep(ctx, 50*time.Millisecond)
	}
	return textResult(fmt.Sprintf("%v", token)), nil
}

// ErrorHandling always fails; the failure reaches the client as an isError
// result.
//
//mcp:tool name=test_error_handling description="Tests error response handling"
type ErrorHandling struct{}

// Execute fails.
func (ErrorHandling) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return nil, errors.New("this tool intentionally returns an error for testing")
}

// ---------------------------------------------------------------- server-initiated requests

// SamplingIn is the input of test_sampling.
type SamplingIn struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

// Sampling asks the client's LLM to complete the prompt (sampling/createMessage).
//
//mcp:tool name=test_sampling description="Tests server-initiated sampling (LLM completion request)"
type Sampling struct{}

// Execute samples. Failures are reported with %v, not wrapped: a wrapped
// *jsonrpc.Error would become a protocol error instead of an isError result.
func (Sampling) Execute(ctx context.Context, req *mcp.CallToolRequest, in SamplingIn) (*mcp.CallToolResult, error) {
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling failed: %v", err)
	}
	text := "(non-text response)"
	if t, ok := res.Content.(*mcp.TextContent); ok {
		text = t.Text
	}
	return textResult("LLM response: " + text), nil
}

// ElicitationIn is the input of test_elicitation.
type ElicitationIn struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// usernameSchema is what test_elicitation asks the user for.
var usernameSchema = &jsonschema.Schema{
	Type:       "object",
	Properties: map[string]*jsonschema.Schema{"username": {Type: "string", Description: "Your preferred username"}},
	Required:   []string{"username"},
}

// Elicitation asks the user for a username (elicitation/create).
//
//mcp:tool name=test_elicitation description="Tests server-initiated elicitation (user input request)"
type Elicitation struct{}

// Execute elicits.
func (Elicitation) Execute(ctx context.Context, req *mcp.CallToolRequest, in ElicitationIn) (*mcp.CallToolResult, error) {
	return elicit(ctx, req, &mcp.ElicitParams{Message: in.Message, RequestedSchema: usernameSchema})
}

// elicit sends p to the client and describes its answer.
func elicit(ctx context.Context, req *mcp.CallToolRequest, p *mcp.ElicitParams) (*mcp.CallToolResult, error) {
	res, err := req.Session.Elicit(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("elicitation failed: %v", err)
	}
	return textResult(fmt.Sprintf("Elicitation result: action=%s, content=%v", res.Action, res.Content)), nil
}

// ElicitationDefaults elicits a form whose primitive fields have defaults
// (SEP-1034).
//
//mcp:tool name=test_elicitation_sep1034_defaults description="Tests elicitation with default values per SEP-1034"
type ElicitationDefaults struct{}

// Execute elicits.
func (ElicitationDefaults) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return elicit(ctx, req, &mcp.ElicitParams{
		Message: "Test defaults for primitives",
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
		},
	})
}

// ElicitationEnums elicits a form with every enum shape of SEP-1330.
//
//mcp:tool name=test_elicitation_sep1330_enums description="Tests elicitation with enum schema improvements per SEP-1330"
type ElicitationEnums struct{}

// Execute elicits.
func (ElicitationEnums) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	titled := func() []map[string]any {
		return []map[string]any{
			{"const": "value1", "title": "First Option"},
			{"const": "value2", "title": "Second Option"},
			{"const": "value3", "title": "Third Option"},
		}
	}
	return elicit(ctx, req, &mcp.ElicitParams{
		Message: "Test enum schemas",
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle":   map[string]any{"type": "string", "oneOf": titled()},
				"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
					"enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"type": "string", "anyOf": titled()}},
			},
		},
	})
}

// ---------------------------------------------------------------- schemas and headers

// jsonSchema2020 is the input schema of json_schema_2020_12_tool: JSON Schema
// 2020-12 keywords that must reach the client unchanged (SEP-1613, SEP-2106).
var jsonSchema2020 = json.RawMessage(`{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`)

// JSONSchema2020 echoes its validated arguments.
//
//mcp:tool name=json_schema_2020_12_tool description="Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)" inputschema=jsonSchema2020
type JSONSchema2020 struct{}

// Execute echoes.
func (JSONSchema2020) Execute(ctx context.Context, req *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, error) {
	return textResult("JSON Schema 2020-12 tool called with: " + string(in)), nil
}

// xMCPHeaderSchema is the input schema of test_x_mcp_header: region is
// mirrored into the Mcp-Param-Region HTTP header (SEP-2243), which the SDK
// checks against the body.
var xMCPHeaderSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
		"level": {"type": "integer", "description": "non-mirrored argument"}
	}
}`)

// XMCPHeaderIn is the input of test_x_mcp_header.
type XMCPHeaderIn struct {
	Region string `json:"region,omitempty"`
	Level  int    `json:"level,omitempty"`
}

// XMCPHeader answers with the region it was given.
//
//mcp:tool name=test_x_mcp_header description="Tests SEP-2243 Mcp-Param-* server-side validation" inputschema=xMCPHeaderSchema
type XMCPHeader struct{}

// Execute answers.
func (XMCPHeader) Execute(ctx context.Context, req *mcp.CallToolRequest, in XMCPHeaderIn) (*mcp.CallToolResult, error) {
	return textResult("region=" + in.Region), nil
}

// ---------------------------------------------------------------- stream resumption

// Reconnection closes its SSE stream mid-call (SEP-1699) and answers after
// the client reconnects.
//
//mcp:tool name=test_reconnection description="Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects."
type Reconnection struct{}

// Execute closes the stream, waits and answers.
func (Reconnection) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	}
	sleep(ctx, 100*time.Millisecond)
	return textResult("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
}

// ---------------------------------------------------------------- SEP-2575 diagnostics

// MissingCapability needs the client's sampling capability and fails with
// -32021 without it.
//
//mcp:tool name=test_missing_capability description="Requires the sampling client capability; used to verify MissingRequiredClientCapabilityError (-32021) (SEP-2575)"
type MissingCapability struct{}

// Execute checks the capability.
func (MissingCapability) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps != nil && caps.Sampling != nil {
		return textResult("Client declared the sampling capability; tool executed."), nil
	}
	data, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	})
	if err != nil {
		return nil, err
	}
	return nil, &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "sampling capability required but not declared by client",
		Data:    data,
	}
}

// StreamingElicitation answers at once: its response stream carries the
// result and no server-to-client request.
//
//mcp:tool name=test_streaming_elicitation description="Streams progress notifications while a call is in flight; used to verify response streams carry only notifications, never independent JSON-RPC requests (SEP-2575)"
type StreamingElicitation struct{}

// Execute answers.
func (StreamingElicitation) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	return textResult("stream observed: result frames only, no top-level requests"), nil
}

// LoggingTool tries to log; the SDK drops the message unless the request
// set a log level.
//
//mcp:tool name=test_logging_tool description="Attempts to emit a log message; the framework must drop it when the client did not set _meta.../logLevel (SEP-2575)"
type LoggingTool struct{}

// Execute logs and answers.
func (LoggingTool) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "test_logging_tool executed"})
	return textResult("Log attempted; framework gates on _meta.../logLevel."), nil
}

// Names of the entities the trigger tools (re-)register.
const (
	transientToolName   = "__transient_tool_for_list_changed"
	transientPromptName = "__transient_prompt_for_list_changed"
)

// TriggerToolChange (re-)registers a transient tool, which makes the SDK
// send notifications/tools/list_changed.
//
//mcp:tool name=test_trigger_tool_change description="Mutates the tool list to trigger a notifications/tools/list_changed on active subscription streams (SEP-2575)"
type TriggerToolChange struct{ r framework.Registrar }

// NewTriggerToolChange returns the tool; r is where it adds the transient tool.
func NewTriggerToolChange(r framework.Registrar) *TriggerToolChange { return &TriggerToolChange{r: r} }

// Execute adds the transient tool.
func (t *TriggerToolChange) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	err := framework.AddToolFunc(t.r, &mcp.Tool{Name: transientToolName, Description: "Transient tool used to trigger tools/list_changed"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	if err != nil {
		return nil, err
	}
	return textResult("tools_list_changed published"), nil
}

// TriggerPromptChange (re-)registers a transient prompt, which makes the SDK
// send notifications/prompts/list_changed.
//
//mcp:tool name=test_trigger_prompt_change description="Mutates the prompt list to trigger a notifications/prompts/list_changed on active subscription streams (SEP-2575)"
type TriggerPromptChange struct{ r framework.Registrar }

// NewTriggerPromptChange returns the tool; r is where it adds the transient prompt.
func NewTriggerPromptChange(r framework.Registrar) *TriggerPromptChange {
	return &TriggerPromptChange{r: r}
}

// Execute adds the transient prompt.
func (t *TriggerPromptChange) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	err := framework.AddPromptFunc(t.r, &mcp.Prompt{Name: transientPromptName, Description: "Transient prompt used to trigger prompts/list_changed"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	if err != nil {
		return nil, err
	}
	return textResult("prompts_list_changed published"), nil
}
