package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// Incoming sees each message the upstream sends before the SDK does
// (after the session counted the notifications): it notes the tools
// that must be called as tasks from a tools/list result, and marks a
// request to the client that came on a forwarded call's response (ctx
// is the call's, see [ups.Calls.Begin]) with the call's key (see
// related.go). ctx carries no call for a message on no call's stream,
// and over stdio.
func (c *conn) Incoming(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
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

// ListChanged asks the watcher to refresh the mounted entities, listing
// them through c (see [upstream.listChanged]).
func (c *conn) ListChanged(kind string) { c.u.listChanged(c, kind) }
