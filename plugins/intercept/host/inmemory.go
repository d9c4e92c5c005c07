package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// InMemory returns a function that connects an invoker in the same process
// to srv, a hookflow server that serves interceptors (the [Plugin] is
// attached to it): each call connects srv to one end of a new pair of
// in-memory transports and returns the other end. It is what
// intercept.Server.Transport takes, so that the intercept plugin and
// intercept.Chain run interceptors written in Go in process, with the same
// invocations, policy and failure routing as a remote host's.
func InMemory(srv *framework.Server) func(ctx context.Context) (mcp.Transport, error) {
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}
