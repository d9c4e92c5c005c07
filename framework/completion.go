package framework

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// complete is the SDK's CompletionHandler: one completion:complete run. The
// referenced prompt or resource is the run's entity, so its app's hooks
// apply; it answers with the entity's completer, else Options.Complete, else
// no values.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var entity *flows.Entity
	sc := s.scope
	plan := s.lists.completion
	var completer func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	ix := s.index.Load()
	if p := req.Params; p != nil && p.Ref != nil {
		switch p.Ref.Type {
		case "ref/prompt":
			if e := ix.prompts[p.Ref.Name]; e != nil {
				entity, sc, completer, plan = e.entity, e.scope, e.complete, e.completion
			}
		case "ref/resource":
			if e := ix.resources[p.Ref.URI]; e != nil {
				entity, sc, completer, plan = e.entity, e.scope, e.complete, e.completion
			}
		}
	}
	if completer == nil {
		completer = s.opts.Complete
	}
	st := &completeSteps{fn: completer, req: req}
	c, err := s.run(ctx, flows.CompletionComplete, entity, s.requestInfo("completion/complete", req), req.Params, sc, req, plan.Load(), st)
	defer s.runner.Release(c)
	if err != nil {
		return nil, protocolError(err)
	}
	if res, _ := c.Output().(*mcp.CompleteResult); res != nil {
		return res, nil
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}

type completeSteps struct {
	fn  func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	req *mcp.CompleteRequest
}

func (c *completeSteps) Validate(*flows.Context) error { return nil }

func (c *completeSteps) Execute(fc *flows.Context) error {
	if c.fn == nil {
		fc.SetOutput(&mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}})
		return nil
	}
	res, err := c.fn(fc.Context(), c.req)
	if err != nil {
		return err
	}
	fc.SetOutput(res)
	return nil
}
