package framework

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// complete is the SDK's CompletionHandler: one completion:complete run. The
// referenced prompt or resource is the run's entity, so its app's hooks
// apply; it answers with the entity's completer, else Options.Complete, else
// no values.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var entity *flows.Entity
	plan := s.lists[flows.CompletionComplete.Index()]
	var completer func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	ix := s.index.Load()
	if p := req.Params; p != nil && p.Ref != nil {
		switch p.Ref.Type {
		case "ref/prompt":
			e := ix.prompts[p.Ref.Name]
			if e == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", p.Ref.Name)}
			}
			entity, completer, plan = e.entity, e.complete, e.completion
		case "ref/resource":
			e := ix.resources[p.Ref.URI]
			if e == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource %q", p.Ref.URI)}
			}
			entity, completer, plan = e.entity, e.complete, e.completion
		}
	}
	if completer == nil {
		completer = s.opts.Complete
	}
	info := s.requestInfo("completion/complete", req)
	out, err := s.runner.Run(ctx, flows.Run{Flow: flows.CompletionComplete, Entity: entity, Request: info,
		Input: req.Params, Plan: plan.Load(), Steps: completeSteps{fn: completer}})
	if err != nil {
		return nil, protocolError(err, info)
	}
	if res, _ := out.(*mcp.CompleteResult); res != nil {
		return res, nil
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}

// completeSteps is the completion flow's steps: fn answers (nil: no values).
type completeSteps struct {
	fn func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
}

func (completeSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

// Execute asks the completer, with the parameters as hooks left them.
func (st completeSteps) Execute(c *flows.Context) (any, error) {
	if st.fn == nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	req, _ := c.Request().SDK.(*mcp.CompleteRequest)
	if p, ok := c.Input().(*mcp.CompleteParams); ok && p != nil && req != nil && p != req.Params {
		r := *req
		r.Params = p
		req = &r
	}
	return st.fn(c.Context(), req)
}
