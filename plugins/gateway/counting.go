package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// incoming sees each message the upstream sends before the SDK does:
// it counts the notifications (see drain), notes the tools that must be
// called as tasks from a tools/list result, and marks a request to the
// client that came on a forwarded call's response (ctx is the call's,
// see begin) with the call's key (see related.go). ctx carries no call
// for a message on no call's stream, and over stdio.
func (c *conn) incoming(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			if counted(m.Method) && c.read.Add(1)-c.handled.Load() > maxBacklog {
				c.slowDown()
			}
			return
		}
		if k, _ := ctx.Value(callKey{}).(*call); k != nil && toClient(m.Method) {
			if p, ok := markRelated(m.Params, k.key); ok {
				m.Params = p
			}
		}
	case *jsonrpc.Response:
		c.noteTaskTools(taskTools(m.Result))
	}
}

// maxBacklog bounds the notifications read from the upstream that the
// client's handlers have not finished with. The SDK queues what its
// transport reads without bound, and its queue keeps what it handled
// until it grows again: a transport that reads faster than the handlers
// would make it hold a whole flood of notifications.
const maxBacklog = 256

// slowDown holds the reading of the upstream until the client's handlers
// have caught up with half of the backlog, for drainTimeout at most;
// after that the counts are brought level (as in drainHandlers), so that
// a handler that waits long (a request to the client) slows the reading
// by drainTimeout per maxBacklog notifications at most.
func (c *conn) slowDown() {
	deadline := time.Now().Add(drainTimeout)
	timer := time.AfterFunc(drainTimeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.read.Load()-c.handled.Load() > maxBacklog/2 {
		if !time.Now().Before(deadline) || c.broken.Load() {
			for {
				h, r := c.handled.Load(), c.read.Load()
				if h >= r || c.handled.CompareAndSwap(h, r) {
					return
				}
			}
		}
		c.cond.Wait()
	}
}

// noteStatus notes an HTTP upstream's refusal of the gateway's
// credentials (see wrap).
func (c *conn) noteStatus(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		c.refused.Store(true)
	}
}

// countingTransport counts the notifications read from its connection
// (a stdio upstream's), through incoming.
type countingTransport struct {
	mcp.Transport
	c *conn
}

func (t countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{Connection: conn, c: t.c}, nil
}

type countingConn struct {
	mcp.Connection
	c *conn
}

func (cc countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := cc.Connection.Read(ctx)
	if err != nil {
		// The process's output ended, or the gateway closes the session.
		cc.c.broken.Store(true)
		return msg, err
	}
	cc.c.incoming(context.Background(), msg)
	return msg, err
}
