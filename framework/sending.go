package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/streamable"
)

// sendingMiddleware runs the flows of what the server sends its client
// (the flow table's FromServer rows: notifications, sampling, elicitation,
// roots) around the SDK's sending. A flow with no hooks (and no observer)
// costs a switch on the method and a plan load: the message is sent
// as it is.
func (s *Server) sendingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	var steps [flows.Count]flows.Steps
	for i, f := range flows.All() {
		if f.Direction == flows.FromServer {
			steps[i] = sentSteps{srv: s, next: next, flow: f.ID}
		}
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		flow, ok := flows.ForSent(method)
		if !ok || steps[flow.Index()] == nil {
			return next(ctx, method, req)
		}
		p := s.lists[flow.Index()].Load()
		if p.Len() == 0 && s.runner.Observer() == nil {
			return next(ctx, method, req)
		}
		info := s.requestInfo(method, req)
		out, err := s.runner.Run(ctx, flows.Run{Flow: flow, Request: info, Input: sentInput(flow, req.GetParams()), Plan: p, Steps: steps[flow.Index()]})
		if err != nil {
			return nil, err
		}
		res, _ := out.(mcp.Result)
		return res, nil
	}
}

// sentInput returns the input of a run about a message the server sends:
// its parameters, as the run's own copy for the requests whose typed view
// lets hooks change them in place. A sampling request is given in the form
// that may carry tools, which the SDK sends exactly as the plain form.
func sentInput(flow flows.ID, params mcp.Params) any {
	switch p := params.(type) {
	case *mcp.CreateMessageParams:
		if p != nil {
			return withTools(p)
		}
	case *mcp.CreateMessageWithToolsParams:
		if p != nil {
			cp := *p
			return &cp
		}
	case *mcp.ElicitParams:
		if p != nil {
			cp := *p
			return &cp
		}
	}
	return params
}

// sentSteps are the steps of a run about a message the server sends.
// Execute sends it, with the parameters as hooks left them; CheckOutput
// makes sure a hook's answer has the type the sender expects; Finish logs
// a notification a hook dropped or refused.
type sentSteps struct {
	srv  *Server
	next mcp.MethodHandler
	flow flows.ID
}

func (sentSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

func (st sentSteps) Execute(c *flows.Context) (any, error) {
	r := c.Request()
	req := r.SDK
	if p, _ := c.Input().(mcp.Params); req != nil && p != req.GetParams() {
		// The SDK's sending handler reads only the session and the
		// parameters of the request.
		req = &mcp.ServerRequest[mcp.Params]{Session: r.Session, Params: p, Extra: req.GetExtra()}
	}
	res, err := st.next(c.Context(), r.Method, req)
	if err != nil {
		if st.flow == flows.NotificationsFromServer && noStream(err) {
			st.srv.unstreamed(c)
			return nil, nil
		}
		return nil, err
	}
	if isNilResult(res) {
		return nil, nil
	}
	return res, nil
}

// CheckOutput refuses an answer the sender could not take: a request's
// answer must have the result type of its method, a notification has
// none.
func (st sentSteps) CheckOutput(c *flows.Context) error {
	out := c.Output()
	if st.flow.IsResult(out) {
		return nil
	}
	who := "the client's answer"
	if c.Responded() && c.DecidedBy() != "" {
		who = fmt.Sprintf("the answer of hook %q", c.DecidedBy())
	}
	want := "no answer"
	if info := st.flow.Info(); info.Result != "" {
		want = "a non-nil *mcp." + info.Result
	}
	return &flows.Error{Code: flows.CodeFailed, Flow: st.flow, Step: "output", Msg: fmt.Sprintf("%s is a %T; %s takes %s", who, out, c.Request().Method, want)}
}

func (st sentSteps) Finish(c *flows.Context, output any, err error) (any, error) {
	if st.flow == flows.NotificationsFromServer {
		logUndelivered(st.srv.logger, c, err)
	}
	return output, err
}

// noStream reports whether err is a transport's for a notification that
// found no stream open to its client over streamable HTTP: a client that
// opened no GET stream, between its requests. hookflow's transport says so
// with streamable.ErrNoStream; the SDK's handler has no sentinel for it,
// only its text.
func noStream(err error) bool {
	return errors.Is(err, streamable.ErrNoStream) || strings.Contains(err.Error(), "stream not connected")
}

// unstreamed counts a notification of run c that found no stream open to
// its client, which is normal (a client need not keep a stream open),
// and logs the first at debug level.
func (s *Server) unstreamed(c *flows.Context) {
	if s.noStream.Add(1) == 1 {
		s.logger.LogAttrs(c.Context(), slog.LevelDebug, "hookflow: a notification found no stream open to its client; such notifications are counted (Server.Unstreamed), not logged",
			slog.String("method", c.Request().Method))
	}
}

// Unstreamed returns how many notifications found no stream open to their
// client over streamable HTTP: a client that opens no GET stream hears
// list changes and updates only on the responses of its requests. They
// are not errors (hooks and audit see them delivered); the first is
// logged at debug level.
func (s *Server) Unstreamed() uint64 { return s.noStream.Load() }
