package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/internal/streamable"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// conn is one upstream session: the main one (ss nil) or a client
// session's. It keeps the calls in flight through it, so that what the
// upstream sends about a call (progress, log messages, sampling,
// elicitation and roots requests) reaches the client session that made
// the call, on that call's stream.
type conn struct {
	u  *upstream
	ss *mcp.ServerSession
	// cs is set once the session is connected, before ready is closed:
	// the upstream may send notifications while it connects, and their
	// handlers run before cs is known (see waitReady).
	cs    *mcp.ClientSession
	ready chan struct{}
	// seq orders the upstream sessions by their opening, set before the
	// upstream can say anything (its list changes are ordered by it while
	// it connects); listed is a client session's upstream session's last
	// listing, keys its entities with their descriptions, nil until
	// listed (both under u.mu; the main session's are the upstream's).
	seq    uint64
	listed listing
	keys   map[entityKey]string
	// client is the SDK client of cs alone: it tells the upstream the
	// roots of ss changed (see rootsChanged).
	client *mcp.Client

	// backlog counts the notifications read from the upstream and those
	// the client's handlers finished with (see drain).
	backlog ups.Backlog
	// broken is set once reading from the upstream failed: the session
	// is over (see markBroken). refused is set once an HTTP upstream
	// answered 401 or 403 to the gateway's credentials.
	broken, refused atomic.Bool
	// checking is set while suspectSession pings this session.
	checking atomic.Bool

	// relay passes on to ss what the upstream sends about the calls in
	// flight through the session.
	relay ups.Relay

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
	c.relay = ups.Relay{Session: ss, Out: u.g.out, Dropped: &u.dropped, Log: u.log, Related: takeRelated}
	defer close(c.ready)
	opts := c.clientOptions(caps)
	client := mcp.NewClient(&mcp.Implementation{Name: "hookflow-gateway", Version: "1"}, opts)
	c.client = client
	client.AddReceivingMiddleware(c.drained)
	if ss != nil {
		client.AddReceivingMiddleware(c.relay.Route)
	}
	client.AddReceivingMiddleware(c.recovering) // the outermost
	t, stderr := c.transport()
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		if stderr != nil {
			stderr.Flush()
		}
		return nil, err
	}
	c.cs = cs
	if stderr != nil {
		ups.Go(u.log, "waiting for an upstream process", func() {
			// The session ends when the process does (or the gateway
			// closes it): say how it ended.
			stderr.Ended(cs.Wait())
		})
	}
	if ss != nil && cs.InitializeResult() != nil && cs.InitializeResult().Capabilities.Logging != nil {
		// The client's level applies at the gateway, where the messages
		// are sent on: the upstream sends them all.
		lctx, cancel := context.WithTimeout(ctx, u.cfg.Timeout)
		_ = cs.SetLoggingLevel(lctx, &mcp.SetLoggingLevelParams{Level: "debug"})
		cancel()
	}
	return c, nil
}

// clientOptions are the options of c's client: the handlers of what the
// upstream sends, and for a client session's upstream session what its
// client's capabilities (caps, or those it initialized with) offer.
func (c *conn) clientOptions(caps *mcp.ClientCapabilities) *mcp.ClientOptions {
	u, ss := c.u, c.ss
	opts := &mcp.ClientOptions{
		Logger:                      u.log,
		ProgressNotificationHandler: c.relay.Progress,
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:                &mcp.ClientCapabilities{},
	}
	opts.ResourceUpdatedHandler = c.resourceUpdated
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { u.listChanged(c, "tool") }
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { u.listChanged(c, "prompt") }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { u.listChanged(c, "resource") }
	if ss != nil {
		if caps == nil {
			if ip := ss.InitializeParams(); ip != nil {
				caps = ip.Capabilities
			}
		}
		opts.LoggingMessageHandler = c.relay.LogMessage
		if caps != nil {
			if caps.Sampling != nil {
				opts.CreateMessageWithToolsHandler = c.relay.Sample
				opts.Capabilities.Sampling = caps.Sampling
			}
			if caps.Elicitation != nil {
				opts.ElicitationHandler = c.relay.Elicit
				opts.ElicitationCompleteHandler = c.relay.ElicitationComplete
				opts.Capabilities.Elicitation = caps.Elicitation
			}
			if caps.RootsV2 != nil {
				r := *caps.RootsV2
				opts.Capabilities.RootsV2 = &r
			}
		}
	}
	return opts
}

// transport is the transport to c's upstream: its command over stdio,
// with stderr the log of the process's standard error, or its URL.
func (c *conn) transport() (t mcp.Transport, stderr *ups.Stderr) {
	u := c.u
	if len(u.cfg.Command) > 0 {
		cmd := u.cfg.command()
		stderr = ups.CaptureStderr(u.log, cmd)
		t := &mcp.CommandTransport{Command: cmd, TerminateDuration: TerminateAfter}
		return ups.Observed{Transport: t, Message: c.incoming, Ended: c.ended}, stderr
	}
	// hookflow's client transport decodes each message once and tells
	// the gateway, with the context of the call it came for.
	return &streamable.ClientTransport{
		Endpoint:   u.cfg.URL,
		HTTPClient: &http.Client{Transport: u.rt},
		Hooks: streamable.ClientHooks{
			Message: c.incoming,
			Status:  c.noteStatus,
			Error:   c.markBroken,
		},
	}, nil
}

// waitReady waits until c is connected, or failed to (then it returns
// false), or ctx is done.
func (c *conn) waitReady(ctx context.Context) bool {
	select {
	case <-c.ready:
		return c.cs != nil
	case <-ctx.Done():
		return false
	}
}

// version returns the protocol version the upstream session negotiated.
func (c *conn) version() string {
	if ir := c.cs.InitializeResult(); ir != nil {
		return ir.ProtocolVersion
	}
	return ""
}

// rootsChanged tells the upstream that the roots of the client session
// changed, when the client offered it roots with listChanged (a
// notifications/roots/list_changed).
//
// The SDK sends that notification only when a Client's roots change, to
// the sessions of that Client: here cs alone. The client's own list of
// roots is never read, as c's relay ([ups.Relay.Route]) answers the
// upstream's roots/list with the client session's roots: adding one root
// to it, again and again (AddRoots replaces a root of the same URI, and
// notifies), is only the way to send the notification. It waits on the upstream: callers call
// it in the background, so as not to hold up the client's session.
func (c *conn) rootsChanged() {
	c.client.AddRoots(&mcp.Root{URI: rootsChangedURI})
}

// rootsChangedURI is the URI of the one root in the list of the SDK
// client of a client session's upstream session; see [conn.rootsChanged].
const rootsChangedURI = "hookflow-gateway:roots-changed"

// drained counts the notifications the client's handlers finished; see
// [conn.drain].
func (c *conn) drained(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		c.backlog.Handled(method)
		return res, err
	}
}

// drain waits until the client's handlers have finished with the
// notifications that arrived before a call's answer (see [ups.Backlog]),
// and the queue of client session ss (nil for none) has sent those they
// queued, for [ups.DrainTimeout] at most in all. incoming counts what
// the connection reads: over HTTP hookflow's client transport calls it,
// over stdio [ups.Observed].
func (c *conn) drain(ss *mcp.ServerSession) {
	deadline := time.Now().Add(ups.DrainTimeout)
	c.backlog.Drain(deadline)
	if ss != nil {
		c.u.g.out.Flushed(ss, deadline)
	}
}

// markBroken marks c broken when err, an error reading from the
// upstream or reaching it, says the session is over rather than that a
// request was cancelled. The SDK reads before it fails the requests in
// flight, so a request failing with the session sees the mark.
func (c *conn) markBroken(err error) {
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		c.ended()
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
	case c.refused.Load():
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
	case c.broken.Load(), errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
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

// recovering is the receiving middleware of an upstream session's client
// that recovers a panic of the gateway's handlers of what the upstream
// sends (notifications, and sampling, elicitation and roots requests):
// the panic is logged, and a request fails with an internal error
// instead of the process.
func (c *conn) recovering(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				ups.LogPanic(c.u.log, "handling "+method+" from the upstream", v)
				res, err = nil, fmt.Errorf("gateway: internal error handling %s", method)
			}
		}()
		return next(ctx, method, req)
	}
}
