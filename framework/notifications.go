package framework

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// isNotification reports whether method is an MCP notification, which has
// no result.
func isNotification(method string) bool { return strings.HasPrefix(method, "notifications/") }

// clientNotificationSteps are the steps of a notifications:from-client
// run: execute delivers the notification (with the parameters as hooks
// left them) to the SDK's handler; Finish logs a notification a hook
// dropped or refused, and reports no error, as a notification has no
// answer.
type clientNotificationSteps struct {
	srv  *Server
	next mcp.MethodHandler
}

func (clientNotificationSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

func (n clientNotificationSteps) Execute(c *flows.Context) (any, error) {
	r := c.Request()
	req := r.SDK
	if p, _ := c.Input().(mcp.Params); req != nil && p != req.GetParams() {
		var err error
		if req, err = withParams(req, p); err != nil {
			return nil, err
		}
	}
	_, err := n.next(c.Context(), r.Method, req)
	return nil, err
}

func (n clientNotificationSteps) Finish(c *flows.Context, _ any, err error) (any, error) {
	logUndelivered(n.srv.logger, c, err)
	return nil, nil
}

// logUndelivered logs a notification that a hook dropped (at debug level)
// or that failed (at warning level).
func logUndelivered(logger *slog.Logger, c *flows.Context, err error) {
	r := c.Request()
	switch {
	case err != nil:
		logger.LogAttrs(c.Context(), slog.LevelWarn, "hookflow: notification not delivered",
			slog.String("flow", string(c.Flow())), slog.String("method", r.Method), slog.String("request", r.ID),
			slog.String("hook", c.DecidedBy()), slog.Any("error", err))
	case c.Responded():
		logger.LogAttrs(c.Context(), slog.LevelDebug, "hookflow: notification dropped",
			slog.String("flow", string(c.Flow())), slog.String("method", r.Method), slog.String("request", r.ID),
			slog.String("hook", c.DecidedBy()))
	}
}

// withParams returns req, a notification the server received, with its
// parameters replaced by p, which must be of the notification's own
// parameter type: the SDK's handler of each notification takes its own
// request type.
func withParams(req mcp.Request, p mcp.Params) (mcp.Request, error) {
	switch r := req.(type) {
	case *mcp.ServerRequest[*mcp.InitializedParams]:
		return replaceParams(r, p)
	case *mcp.ServerRequest[*mcp.ProgressNotificationParams]:
		return replaceParams(r, p)
	case *mcp.ServerRequest[*mcp.RootsListChangedParams]:
		return replaceParams(r, p)
	case *mcp.ServerRequest[*mcp.CancelledParams]:
		return replaceParams(r, p)
	}
	return nil, fmt.Errorf("the parameters of a %T cannot be replaced", req)
}

// replaceParams returns a copy of r with the parameters p.
func replaceParams[P mcp.Params](r *mcp.ServerRequest[P], p mcp.Params) (mcp.Request, error) {
	typed, ok := p.(P)
	if !ok {
		return nil, fmt.Errorf("the notification's parameters are a %T; a hook replaced them with a %T", r.Params, p)
	}
	cp := *r
	cp.Params = typed
	return &cp, nil
}
