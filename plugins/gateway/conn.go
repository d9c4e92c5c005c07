package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// conn is the gateway's side of one upstream session (see
// [ups.Session]): the main one (ss nil) or a client session's. It is the
// session's [ups.Host].
type conn struct {
	ups.Session
	u  *upstream
	ss *mcp.ServerSession
	// ready is closed once the session is connected (CS set) or failed
	// to: the upstream may send notifications while it connects, and
	// their handlers run before CS is known (see waitReady).
	ready chan struct{}
	// seq orders the upstream sessions by their opening, set before the
	// upstream can say anything (its list changes are ordered by it while
	// it connects); listed is a client session's upstream session's last
	// listing, keys its entities with their descriptions, nil until
	// listed (both under u.mu; the main session's are the upstream's).
	seq    uint64
	listed listing
	keys   map[entityKey]string

	mu sync.Mutex
	// taskTools are the upstream's tools that must be called as tasks
	// (see taskTools), which the gateway leaves out.
	taskTools map[string]bool
}

// connect opens an upstream session, the seq'th opened (0 for the main
// session); for a client session ss (nil for the main session) it offers
// the upstream the client's capabilities and routes the upstream's
// requests back to ss.
func (u *upstream) connect(ctx context.Context, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, version string, seq uint64) (*conn, error) {
	c := &conn{u: u, ss: ss, seq: seq, ready: make(chan struct{})}
	c.Relay = ups.Relay{Session: ss, Out: u.g.out, Dropped: &u.dropped, Log: u.log, Related: takeRelated}
	defer close(c.ready)
	d := ups.Dial{TerminateAfter: TerminateAfter, URL: u.cfg.URL, HTTP: u.rt, Version: version, Caps: caps, Timeout: u.cfg.Timeout}
	if len(u.cfg.Command) > 0 {
		d.Command = u.cfg.command()
	}
	if err := c.Connect(ctx, d, c); err != nil {
		return nil, err
	}
	return c, nil
}

// waitReady waits until c is connected, or failed to (then it returns
// false), or ctx is done.
func (c *conn) waitReady(ctx context.Context) bool {
	select {
	case <-c.ready:
		return c.CS != nil
	case <-ctx.Done():
		return false
	}
}

// wrap turns the error of a forwarded request into the one the client
// gets: the upstream's protocol error as it is; else an error naming the
// upstream and saying what went wrong, but not how: the cause (the
// upstream's address, its session, a token endpoint's answer) is for the
// operator, in a warning of the log, not for the client. A failure that
// is not the upstream's answer makes the gateway check the upstream's
// health.
func (u *upstream) wrap(ctx context.Context, c *conn, method, name string, err error) error {
	if err == nil {
		return nil
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		switch wire.Code {
		case codeClientClosing, codeServerClosing, codeRejected:
			// The SDK's own transport errors, not the upstream's answer.
			ups.Go(u.log, "checking an upstream", func() { u.suspect(c) })
			u.warnFailed("went away", method, name, err)
			return fmt.Errorf("upstream %q went away during %s %q", u.cfg.Name, method, name)
		}
		return wire
	}
	switch {
	case c.Refused():
		ups.Go(u.log, "checking an upstream", func() { u.suspect(c) })
		u.warnFailed("refused the gateway's credentials", method, name, err)
		return fmt.Errorf("upstream %q refused the gateway's credentials for %s %q", u.cfg.Name, method, name)
	case errors.Is(context.Cause(ctx), errTotalTimeout):
		// The upstream still reported progress: it is not suspect.
		u.warnFailed("did not finish in time", method, name, fmt.Errorf("not done within %v, progress or not", u.cfg.MaxTotalTimeout))
		return fmt.Errorf("upstream %q did not finish %s %q within %v", u.cfg.Name, method, name, u.cfg.MaxTotalTimeout)
	case errors.Is(context.Cause(ctx), errTimeout):
		ups.Go(u.log, "checking an upstream", func() { u.suspect(c) })
		u.warnFailed("did not answer in time", method, name, fmt.Errorf("no answer within %v", u.cfg.Timeout))
		return fmt.Errorf("upstream %q did not answer %s %q within %v", u.cfg.Name, method, name, u.cfg.Timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case c.Broken(), errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		ups.Go(u.log, "checking an upstream", func() { u.suspect(c) })
		u.warnFailed("went away", method, name, err)
		return fmt.Errorf("upstream %q went away during %s %q", u.cfg.Name, method, name)
	}
	ups.Go(u.log, "checking an upstream", func() { u.suspect(c) })
	u.warnFailed("failed", method, name, err)
	return fmt.Errorf("upstream %q failed %s %q; the gateway's log has the cause", u.cfg.Name, method, name)
}

// warnFailed logs a forwarded request that failed other than by the
// upstream's answer, with its cause.
func (u *upstream) warnFailed(what, method, name string, err error) {
	u.log.Warn("gateway: forwarded request "+what, slog.String("method", method), slog.String("name", name), slog.Any("err", err))
}

// The codes of the errors the SDK's JSON-RPC layer makes itself when a
// connection closes or its transport refuses a message.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// errTimeout is the cause of a forwarded request's context when the
// upstream did not answer within the upstream's Timeout.
var errTimeout = errors.New("gateway: upstream timeout")

// errTotalTimeout is the cause of a forwarded request's context when the
// upstream did not finish within the upstream's MaxTotalTimeout.
var errTotalTimeout = errors.New("gateway: upstream total timeout")
