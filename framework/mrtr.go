package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxInputRounds bounds the input rounds hookflow fulfils within one call
// for a client that cannot do multi round-trip.
const maxInputRounds = 8

// legacyInputClient reports whether req's client cannot answer an
// input-required result itself (SEP-2322 came with protocol 2026-07-28):
// the server must then ask the client for the inputs and call the tool
// again, within the same request.
func legacyInputClient(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion < withoutInitialize
}

// inputRounds is called when the tool answered req of a legacy client with
// res, an input-required result: while the tool asks for inputs, it
// fulfils them by asking the client (elicitation, sampling, roots) and
// calls the tool again with the responses and its request state. The
// rounds happen inside the tool's execute step, so the call runs its flow,
// and its finally hooks, once; the MCP SDK would otherwise call the tool
// again from outside, running the whole flow a second time.
func inputRounds(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, call func(*mcp.CallToolRequest) (any, error)) (any, error) {
	var out any = res
	for range maxInputRounds {
		res, _ := out.(*mcp.CallToolResult)
		if res == nil || res.InputRequests == nil {
			return out, nil
		}
		if len(res.InputRequests) == 0 {
			return nil, errors.New("the server is busy, retry later")
		}
		responses, err := fulfillInputs(ctx, req.Session, res.InputRequests)
		if err != nil {
			return nil, err
		}
		retry := *req
		params := *req.Params
		params.InputResponses, params.RequestState = responses, res.RequestState
		retry.Params = &params
		if out, err = call(&retry); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("the tool asked for input more than %d times in one call", maxInputRounds)
}

// fulfillInputs asks the client of ss for each input, one after another.
func fulfillInputs(ctx context.Context, ss *mcp.ServerSession, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	responses := make(mcp.InputResponseMap, len(requests))
	for id, ir := range requests {
		var resp mcp.InputResponse
		var err error
		switch p := ir.(type) {
		case *mcp.ElicitParams:
			resp, err = ss.Elicit(ctx, p)
		case *mcp.CreateMessageParams:
			resp, err = ss.CreateMessageWithTools(ctx, withTools(p))
		case *mcp.CreateMessageWithToolsParams:
			resp, err = ss.CreateMessageWithTools(ctx, p)
		case *mcp.ListRootsParams:
			resp, err = ss.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("unknown input request type %T", ir)
		}
		if err != nil {
			return nil, fmt.Errorf("multi-round-trip: fulfilling input request %q: %w", id, err)
		}
		responses[id] = resp
	}
	return responses, nil
}

// withTools returns a sampling request in the form that carries tools.
func withTools(p *mcp.CreateMessageParams) *mcp.CreateMessageWithToolsParams {
	msgs := make([]*mcp.SamplingMessageV2, 0, len(p.Messages))
	for _, m := range p.Messages {
		msgs = append(msgs, &mcp.SamplingMessageV2{Content: []mcp.Content{m.Content}, Role: m.Role})
	}
	return &mcp.CreateMessageWithToolsParams{
		Meta:             p.Meta,
		IncludeContext:   p.IncludeContext,
		MaxTokens:        p.MaxTokens,
		Messages:         msgs,
		Metadata:         p.Metadata,
		ModelPreferences: p.ModelPreferences,
		StopSequences:    p.StopSequences,
		SystemPrompt:     p.SystemPrompt,
		Temperature:      p.Temperature,
	}
}
