package gateway

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// incoming sees each message the upstream sends before the SDK does:
// it counts the notifications in c's backlog (see drain), notes the
// tools that must be called as tasks from a tools/list result, and marks
// a request to the client that came on a forwarded call's response (ctx
// is the call's, see [ups.Calls.Begin]) with the call's key (see
// related.go). ctx carries no call for a message on no call's stream,
// and over stdio.
func (c *conn) incoming(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			c.backlog.Read(m.Method)
			return
		}
		if k := ups.CallOf(ctx); k != nil && toClient(m.Method) {
			if p, ok := markRelated(m.Params, k.Key); ok {
				m.Params = p
			}
		}
	case *jsonrpc.Response:
		c.noteTaskTools(taskTools(m.Result))
	}
}

// noteStatus notes an HTTP upstream's refusal of the gateway's
// credentials (see wrap).
func (c *conn) noteStatus(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		c.refused.Store(true)
	}
}

// ended marks c broken: reading from the upstream failed, and the
// session is over.
func (c *conn) ended() {
	c.broken.Store(true)
	c.backlog.End()
}
