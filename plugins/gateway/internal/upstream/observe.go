package upstream

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observed is a transport whose connection shows the gateway each message
// it reads before the SDK sees it, as hookflow's HTTP client transport
// does through its hooks: a stdio upstream's is wrapped in one.
type observed struct {
	mcp.Transport
	// Message is called with each message read, on the reading
	// goroutine: while it runs, the connection reads no more.
	Message func(context.Context, jsonrpc.Message)
	// Ended is called when a read fails: the process's output ended, or
	// the gateway closes the session.
	Ended func()
}

// Connect connects the transport and wraps its connection.
func (t observed) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return observedConn{Connection: conn, t: t}, nil
}

type observedConn struct {
	mcp.Connection
	t observed
}

func (oc observedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := oc.Connection.Read(ctx)
	if err != nil {
		oc.t.Ended()
		return msg, err
	}
	oc.t.Message(context.Background(), msg)
	return msg, err
}
