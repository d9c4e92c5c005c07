package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// listPlans holds the plans of the flows that run in the SDK middleware:
// the list flows and initialize. They resolve no entity.
type listPlans struct {
	tools, resources, templates, prompts, initialize, completion *scope.PlanRef
}

func (l *listPlans) init(sc *scope.Scope) {
	l.tools = sc.Plan(flows.ToolsListTools, nil, nil)
	l.resources = sc.Plan(flows.ResourcesListResources, nil, nil)
	l.templates = sc.Plan(flows.ResourcesListResourceTemplates, nil, nil)
	l.prompts = sc.Plan(flows.PromptsListPrompts, nil, nil)
	l.initialize = sc.Plan(flows.SessionInitialize, nil, nil)
	l.completion = sc.Plan(flows.CompletionComplete, nil, nil)
}

// middleware runs the middleware flows around the SDK's own handling, and
// turns a panic anywhere below it into an internal error: the SDK does not
// recover, and a panic would take the whole server down.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	flowing := s.flowMiddleware(next)
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.logger.LogAttrs(ctx, slog.LevelError, "hookflow: request panicked",
					slog.String("method", method), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: panic: %v", v)}
			}
		}()
		res, err = flowing(ctx, method, req)
		if err == nil && isNilResult(res) {
			// A nil result without an error crashes the SDK's 2026-07-28 path.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %s produced no result", method)}
		}
		return res, err
	}
}

func isNilResult(r mcp.Result) bool {
	if r == nil {
		return true
	}
	v := reflect.ValueOf(r)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (s *Server) flowMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var plan *scope.PlanRef
		var flow flows.ID
		switch method {
		case "tools/list":
			plan, flow = s.lists.tools, flows.ToolsListTools
		case "resources/list":
			plan, flow = s.lists.resources, flows.ResourcesListResources
		case "resources/templates/list":
			plan, flow = s.lists.templates, flows.ResourcesListResourceTemplates
		case "prompts/list":
			plan, flow = s.lists.prompts, flows.PromptsListPrompts
		case "initialize", "server/discover":
			// Clients of protocol 2026-07-28 discover instead of initializing.
			plan, flow = s.lists.initialize, flows.SessionInitialize
		default:
			return next(ctx, method, req)
		}
		if plan == nil {
			return next(ctx, method, req)
		}
		p := plan.Load()
		if p.Len() == 0 && s.opts.Observer == nil {
			return next(ctx, method, req)
		}
		info := s.requestInfo(method, req)
		out, err := s.runner.Run(ctx, flows.Run{Flow: flow, Request: info, Input: req.GetParams(), Plan: p, Steps: nextSteps{next}})
		if err != nil {
			return nil, protocolError(err, info)
		}
		res, _ := out.(mcp.Result)
		return res, nil
	}
}

// nextSteps is the execute step of a middleware flow: the SDK's handler.
type nextSteps struct{ next mcp.MethodHandler }

func (nextSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

func (n nextSteps) Execute(c *flows.Context) (any, error) {
	r := c.Request()
	return n.next(c.Context(), r.Method, r.SDK)
}

// toolVisible reports whether the tools:list-tools hooks keep entry's tool:
// a tool a list hook hides cannot be called either. Only the list hooks
// whose owner covers the tool's app take part (the server's and that app's,
// with their plugins'), so one app's list hooks never run for another app's
// calls. When there are any, it runs them over a one-tool list; they see
// Request().Method == "tools/call" and can tell this check from a listing.
// A list hook that fails makes the call fail with that hook's error (as a
// protocol error), not look like an unknown tool.
func (s *Server) toolVisible(ctx context.Context, info *flows.Request, entry *toolEntry) (bool, error) {
	p := entry.listPlan.Load()
	if p.Len() == 0 {
		return true, nil
	}
	st := &fixedSteps{out: &mcp.ListToolsResult{Tools: []*mcp.Tool{entry.tool}}}
	out, err := s.runner.Run(ctx, flows.Run{Flow: flows.ToolsListTools, Request: info, Input: &mcp.ListToolsParams{}, Plan: p, Steps: st})
	if err != nil {
		return false, protocolError(err, info)
	}
	res, _ := out.(*mcp.ListToolsResult)
	if res == nil {
		return false, nil
	}
	for _, t := range res.Tools {
		if t != nil && t.Name == entry.tool.Name {
			return true, nil
		}
	}
	return false, nil
}

// fixedSteps is an execute step that produces a fixed output.
type fixedSteps struct{ out any }

func (f *fixedSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

func (f *fixedSteps) Execute(*flows.Context) (any, error) { return f.out, nil }
