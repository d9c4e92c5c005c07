package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// middlewarePlans holds, per flow, the plans of the flows that run in the
// SDK middleware: those that resolve no entity (the lists and initialize).
// Entity flows run from the handlers hookflow registers per entity.
type middlewarePlans [flows.Count]*scope.PlanRef

func (m *middlewarePlans) init(sc *scope.Scope) {
	for i, f := range flows.All() {
		if f.Entity == flows.EntityNone {
			m[i] = sc.Plan(f.ID, nil, nil)
		}
	}
	// completion:complete has an entity but runs from the SDK's
	// CompletionHandler; when its reference is unknown to hookflow it runs
	// with this plan.
	m[flows.CompletionComplete.Index()] = sc.Plan(flows.CompletionComplete, nil, nil)
}

// middleware runs the middleware flows around the SDK's own handling, and
// turns a panic anywhere below it into an internal error: the SDK does not
// recover, and a panic would take the whole server down.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	flowing := s.flowMiddleware(next)
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				// The value may hold secrets: it goes to the log, under an
				// ID the client gets instead.
				id := s.idStamp + "-" + strconv.FormatUint(s.nextID.Add(1), 36)
				s.logger.LogAttrs(ctx, slog.LevelError, "hookflow: request panicked",
					slog.String("method", method), slog.String("request", id), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error (request " + id + ")"}
			}
		}()
		res, err = flowing(ctx, method, req)
		if err == nil && isNilResult(res) && !isNotification(method) {
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
	// The steps of each flow without an entity, built once: the lists are
	// paged by hookflow; any other such flow (initialize, or a new row of
	// the flow table) runs around the SDK's own handler.
	var steps [flows.Count]flows.Steps
	for i, f := range flows.All() {
		if f.Entity == flows.EntityNone && f.Direction == flows.FromClient {
			steps[i] = nextSteps{next}
		}
	}
	steps[flows.NotificationsFromClient.Index()] = clientNotificationSteps{s, next}
	steps[flows.ToolsListTools.Index()] = listSteps[mcp.ListToolsParams, mcp.ListToolsResult, *mcp.Tool]{toolsList, s, next}
	steps[flows.PromptsListPrompts.Index()] = listSteps[mcp.ListPromptsParams, mcp.ListPromptsResult, *mcp.Prompt]{promptsList, s, next}
	steps[flows.ResourcesListResources.Index()] = listSteps[mcp.ListResourcesParams, mcp.ListResourcesResult, *mcp.Resource]{resourcesList, s, next}
	steps[flows.ResourcesListResourceTemplates.Index()] = listSteps[mcp.ListResourceTemplatesParams, mcp.ListResourceTemplatesResult, *mcp.ResourceTemplate]{templatesList, s, next}

	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		flow, ok := flows.ForMethod(method)
		if !ok || steps[flow.Index()] == nil {
			if ok && len(s.refusals) > 0 {
				return s.resolving(ctx, flow, method, req, next)
			}
			return next(ctx, method, req) // an entity's flow: its own handler runs it
		}
		st := steps[flow.Index()]
		if flow == flows.SessionInitialize && method == "initialize" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.InitializeParams() != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the session is already initialized"}
			}
		}
		p := s.lists[flow.Index()].Load()
		if p.Len() == 0 && s.runner.Observer() == nil {
			switch st.(type) {
			case nextSteps, clientNotificationSteps:
				return next(ctx, method, req)
			}
		}
		info := s.requestInfo(method, req)
		out, err := s.runner.Run(ctx, flows.Run{Flow: flow, Request: info, Input: req.GetParams(), Plan: p, Steps: st})
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
