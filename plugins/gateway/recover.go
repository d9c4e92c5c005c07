package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSafe runs fn on a goroutine of its own. A panic in fn is recovered
// and logged at error level with its stack, naming what: a bug met with
// one upstream's answers must not take down the gateway's process, and
// every client session with it.
func goSafe(log *slog.Logger, what string, fn func()) {
	go func() {
		defer recovered(log, what)
		fn()
	}()
}

// recovered, deferred, recovers a panic and logs it as goSafe says.
func recovered(log *slog.Logger, what string) {
	if v := recover(); v != nil {
		if log == nil {
			log = slog.Default()
		}
		log.Error("gateway: recovered from a panic; please report it", slog.String("in", what),
			slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
	}
}

// recovering is the receiving middleware of an upstream session's client
// that recovers a panic of the gateway's handlers of what the upstream
// sends (notifications, and sampling, elicitation and roots requests):
// the panic is logged, and a request fails with an internal error
// instead of the process.
func (c *conn) recovering(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				c.u.log.Error("gateway: recovered from a panic; please report it", slog.String("in", "handling "+method+" from the upstream"),
					slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				res, err = nil, fmt.Errorf("gateway: internal error handling %s", method)
			}
		}()
		return next(ctx, method, req)
	}
}
