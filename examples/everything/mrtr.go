package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Multi round-trip requests (SEP-2322). Each entity here answers a first
// call with an input-required result: InputRequests (elicitation, sampling
// or roots requests for the client) and, for some, a RequestState that the
// client echoes. The retry carries the client's InputResponses.
//
// On protocol 2026-07-28 the client sees "resultType":"input_required" and
// retries with a new request. On older protocols the server fulfils the
// input requests itself with real server-to-client requests and calls the
// entity again within the same request: for a tool, hookflow does that
// inside the execute step, so the call's flow runs once; for a prompt or a
// resource the SDK does it, and the flow runs once per round.

// objectSchema is {"type":"object","properties":{name:{"type":typ}},"required":[name]}.
func objectSchema(name, typ string) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{name: {Type: typ}},
		Required:   []string{name},
	}
}

// askName is the elicitation request for the caller's name.
func askName(message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: objectSchema("name", "string")}
}

// askConfirm is the elicitation request for a boolean confirmation.
func askConfirm() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: objectSchema("ok", "boolean")}
}

// askSampling is a one-message sampling request.
func askSampling(text string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		MaxTokens: maxTokens,
	}
}

// inputRequired is a result that asks the client for inputs.
func inputRequired(state string, requests mcp.InputRequestMap) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}
}

// acceptedContent returns the content of the elicitation answer under key
// when the user accepted it, else nil.
func acceptedContent(responses mcp.InputResponseMap, key string) map[string]any {
	r, ok := responses[key].(*mcp.ElicitResult)
	if !ok || r == nil || r.Action != "accept" {
		return nil
	}
	return r.Content
}

// acceptedString returns the string field of the accepted elicitation
// answer under key, or "".
func acceptedString(responses mcp.InputResponseMap, key, field string) string {
	s, _ := acceptedContent(responses, key)[field].(string)
	return s
}

// samplingText returns the first text of the sampling answer under key
// ("(non-text response)" when it has none); found is false when there is no
// sampling answer there.
func samplingText(responses mcp.InputResponseMap, key string) (text string, found bool) {
	r, ok := responses[key].(*mcp.CreateMessageWithToolsResult)
	if !ok || r == nil {
		return "", false
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "(non-text response)", true
}

// rootsAnswer returns the roots/list answer under key, or nil.
func rootsAnswer(responses mcp.InputResponseMap, key string) *mcp.ListRootsResult {
	r, _ := responses[key].(*mcp.ListRootsResult)
	return r
}

// stateValid stands in for real integrity protection of the request state
// (an HMAC, say): the suite marks tampered states with a "-TAMPERED" suffix.
func stateValid(s string) bool { return s != "" && !strings.HasSuffix(s, "-TAMPERED") }

// inputResponses returns the call's input responses (nil on a first call).
func inputResponses(req *mcp.CallToolRequest) mcp.InputResponseMap {
	if req.Params == nil {
		return nil
	}
	return req.Params.InputResponses
}

// requestState returns the call's echoed request state.
func requestState(req *mcp.CallToolRequest) string {
	if req.Params == nil {
		return ""
	}
	return req.Params.RequestState
}

// MRTRElicitation asks for the caller's name and greets them.
//
//mcp:tool name=test_input_required_result_elicitation description="MRTR (SEP-2322): asks for the caller name via an in-band elicitation request"
type MRTRElicitation struct{}

// Execute asks or greets.
func (MRTRElicitation) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if name := acceptedString(inputResponses(req), "user_name", "name"); name != "" {
		return textResult(fmt.Sprintf("Hello, %s!", name)), nil
	}
	return inputRequired("", mcp.InputRequestMap{"user_name": askName("What is your name?")}), nil
}

// MRTRSampling asks the client's LLM a question.
//
//mcp:tool name=test_input_required_result_sampling description="MRTR (SEP-2322): asks for an LLM completion via an in-band sampling request"
type MRTRSampling struct{}

// Execute asks or answers.
func (MRTRSampling) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if text, ok := samplingText(inputResponses(req), "capital_question"); ok {
		return textResult("Sampling response: " + text), nil
	}
	return inputRequired("", mcp.InputRequestMap{"capital_question": askSampling("What is the capital of France?", 100)}), nil
}

// MRTRListRoots asks for the client's roots.
//
//mcp:tool name=test_input_required_result_list_roots description="MRTR (SEP-2322): asks for the client roots via an in-band roots/list request"
type MRTRListRoots struct{}

// Execute asks or lists.
func (MRTRListRoots) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if roots := rootsAnswer(inputResponses(req), "client_roots"); roots != nil {
		uris := make([]string, 0, len(roots.Roots))
		for _, r := range roots.Roots {
			if r != nil {
				uris = append(uris, r.URI)
			}
		}
		return textResult(fmt.Sprintf("Client exposed %d root(s): %s", len(roots.Roots), strings.Join(uris, ", "))), nil
	}
	return inputRequired("", mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}), nil
}

// MRTRRequestState asks for a confirmation along with a request state,
// which it checks on the retry.
//
//mcp:tool name=test_input_required_result_request_state description="MRTR (SEP-2322): round-trips integrity-protected requestState alongside an elicitation request"
type MRTRRequestState struct{}

// Execute asks or checks.
func (MRTRRequestState) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if acceptedContent(inputResponses(req), "confirm") != nil {
		if !stateValid(requestState(req)) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState"}
		}
		return textResult("state-ok: requestState received and confirmation accepted"), nil
	}
	return inputRequired("request_state", mcp.InputRequestMap{"confirm": askConfirm()}), nil
}

// MRTRMultipleInputs asks for elicitation, sampling and roots in one round.
//
//mcp:tool name=test_input_required_result_multiple_inputs description="MRTR (SEP-2322): asks for elicitation, sampling and roots input in a single round"
type MRTRMultipleInputs struct{}

// Execute asks or answers.
func (MRTRMultipleInputs) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	resp := inputResponses(req)
	name := acceptedString(resp, "user_name", "name")
	greeting, greeted := samplingText(resp, "greeting")
	roots := rootsAnswer(resp, "client_roots")
	if name != "" && greeted && roots != nil {
		return textResult(fmt.Sprintf("%s %s — %d root(s) visible", greeting, name, len(roots.Roots))), nil
	}
	return inputRequired("multiple_inputs", mcp.InputRequestMap{
		"user_name":    askName("What is your name?"),
		"greeting":     askSampling("Generate a greeting", 50),
		"client_roots": &mcp.ListRootsParams{},
	}), nil
}

// MRTRMultiRound asks two questions in two rounds, carrying the first answer
// in the request state ("round=1", then "round=2;name=<name>").
//
//mcp:tool name=test_input_required_result_multi_round description="MRTR (SEP-2322): two elicitation rounds with evolving requestState before completing"
type MRTRMultiRound struct{}

// Execute runs the round the state says.
func (MRTRMultiRound) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	resp := inputResponses(req)
	switch state := requestState(req); state {
	case "":
		return inputRequired("round=1", mcp.InputRequestMap{"step1": askName("Step 1: What is your name?")}), nil
	case "round=1":
		name := acceptedString(resp, "step1", "name")
		if name == "" {
			name = "unknown"
		}
		return inputRequired("round=2;name="+name, mcp.InputRequestMap{"step2": &mcp.ElicitParams{
			Message: "Step 2: What is your favorite color?", RequestedSchema: objectSchema("color", "string"),
		}}), nil
	default:
		color := acceptedString(resp, "step2", "color")
		if color == "" {
			color = "unknown"
		}
		name := strings.TrimPrefix(state, "round=2;name=")
		return textResult(fmt.Sprintf("Multi-round complete: %s likes %s", name, color)), nil
	}
}

// MRTRTamperedState rejects a retry whose request state fails verification.
//
//mcp:tool name=test_input_required_result_tampered_state description="MRTR (SEP-2322): rejects retries whose requestState fails integrity verification"
type MRTRTamperedState struct{}

// Execute asks, rejects or answers.
func (MRTRTamperedState) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	state := requestState(req)
	if state != "" && !stateValid(state) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: tampered"}
	}
	if state != "" && acceptedContent(inputResponses(req), "confirm") != nil {
		return textResult("state-ok: requestState received and confirmation accepted"), nil
	}
	return inputRequired("tampered_state", mcp.InputRequestMap{"confirm": askConfirm()}), nil
}

// MRTRCapabilities asks only for the inputs the client's declared
// capabilities cover.
//
//mcp:tool name=test_input_required_result_capabilities description="MRTR (SEP-2322): only requests input kinds the declared client capabilities cover"
type MRTRCapabilities struct{}

// Execute asks or answers.
func (MRTRCapabilities) Execute(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, error) {
	if len(inputResponses(req)) > 0 {
		return textResult("Capability-aware input requests fulfilled"), nil
	}
	requests := mcp.InputRequestMap{}
	if caps := req.ClientCapabilities(); caps != nil {
		if caps.Elicitation != nil {
			requests["user_name"] = askName("What is your name?")
		}
		if caps.Sampling != nil {
			requests["greeting"] = askSampling("Generate a short greeting", 50)
		}
		if caps.RootsV2 != nil || caps.Roots.ListChanged {
			requests["client_roots"] = &mcp.ListRootsParams{}
		}
	}
	if len(requests) == 0 {
		return textResult("No declared client capability supports an in-band input request"), nil
	}
	return inputRequired("", requests), nil
}

// MRTRPrompt is the prompts/get counterpart: it asks for context and
// renders it.
//
//mcp:prompt name=test_input_required_result_prompt description="MRTR (SEP-2322): asks for context via an in-band elicitation request"
type MRTRPrompt struct{}

// Get asks or renders.
func (MRTRPrompt) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var resp mcp.InputResponseMap
	if req.Params != nil {
		resp = req.Params.InputResponses
	}
	if content := acceptedContent(resp, "user_context"); content != nil {
		text, _ := content["context"].(string)
		return &mcp.GetPromptResult{
			Description: "A prompt with elicited context",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Context: " + text}}},
		}, nil
	}
	return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{
		"user_context": &mcp.ElicitParams{Message: "Please provide context for the prompt", RequestedSchema: objectSchema("context", "string")},
	}}, nil
}
