package framework

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/hookflow/hookflow/flows"
)

// RefusedBy is the [flows.Refusal.By] of a request the server refused
// before any flow ran for it: an unknown or hidden tool, prompt or
// resource.
const RefusedBy = "server/framework:resolve"

// OnRefusal adds record to the readers of requests refused before any
// flow ran for them (an unknown or hidden tool, prompt or resource): from
// Start on, each such request is handed to record as a [flows.Refusal]
// whose Err is the error the client read and whose By is [RefusedBy].
// record runs on the request path: like an observer, it must be fast,
// never block, and be safe for concurrent use. A server without such a
// reader pays nothing for them.
func (p *PluginContext) OnRefusal(record func(context.Context, flows.Refusal)) error {
	if record == nil {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "OnRefusal: nil reader"}
	}
	s := p.Server
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "OnRefusal: the server has started"}
	}
	s.refusals = append(s.refusals, record)
	return nil
}

// refuse hands r to the refusal readers and returns r.Err.
func (s *Server) refuse(ctx context.Context, r flows.Refusal) error {
	r.By = RefusedBy
	for _, record := range s.refusals {
		record(ctx, r)
	}
	return r.Err
}

// refuseHidden is hidden(e), handed to the refusal readers first.
func (s *Server) refuseHidden(ctx context.Context, info *flows.Request, e *flows.Entity, args json.RawMessage) error {
	err := hidden(e)
	if len(s.refusals) == 0 {
		return err
	}
	flow := flows.ToolsCallTool
	switch e.Kind {
	case flows.EntityPrompt:
		flow = flows.PromptsGetPrompt
	case flows.EntityResource:
		flow = flows.ResourcesReadResource
	}
	return s.refuse(ctx, flows.Refusal{Flow: flow, Entity: e.Name, Request: info, Err: err, Args: args})
}

// resolving runs an entity's flow method through next and, when it
// fails because no entity has the name the request gives, hands the
// request to the refusal readers. It costs nothing more when next
// succeeds.
func (s *Server) resolving(ctx context.Context, flow flows.ID, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err == nil {
		return res, nil
	}
	name, args, known := s.resolve(req)
	if known {
		return res, err
	}
	return res, s.refuse(ctx, flows.Refusal{Flow: flow, Entity: name, Request: s.requestInfo(method, req), Err: err, Args: args})
}

// resolve returns the entity name a request of an entity's flow gives,
// its arguments, and whether an entity of the server has that name (then
// the entity's own handler ran, and its flow recorded the request).
func (s *Server) resolve(req mcp.Request) (name string, args json.RawMessage, known bool) {
	ix := s.index.Load()
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return "", nil, false
		}
		e := ix.tools[r.Params.Name]
		return r.Params.Name, r.Params.Arguments, e != nil && e.served.Load()
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return "", nil, false
		}
		if len(r.Params.Arguments) > 0 {
			args, _ = json.Marshal(r.Params.Arguments)
		}
		e := ix.prompts[r.Params.Name]
		return r.Params.Name, args, e != nil && e.served.Load()
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return "", nil, false
		}
		return r.Params.URI, nil, resourceKnown(ix, r.Params.URI)
	}
	return "", nil, true // not an entity's request: not ours to record
}

// resourceKnown reports whether a resource of ix has uri, or a template
// of ix matches it.
func resourceKnown(ix *entityIndex, uri string) bool {
	for _, e := range ix.resources {
		switch ent := e.entity; {
		case ent.Resource != nil && ent.Resource.URI == uri:
			return true
		case ent.Template != nil:
			t, err := uritemplate.New(ent.Template.URITemplate)
			if err == nil && t.Match(uri) != nil {
				return true
			}
		}
	}
	return false
}
