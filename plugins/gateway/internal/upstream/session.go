package upstream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/internal/streamable"
)

// Host is what an upstream session tells the gateway, which gives it one
// per session: its own look at each message the upstream sends, and the
// notifications that concern what the gateway mounted.
type Host interface {
	// Incoming sees each message the upstream sends, before the SDK
	// does; ctx is the call's over HTTP when the message came on a
	// call's response (see [CallOf]).
	Incoming(ctx context.Context, msg jsonrpc.Message)
	// ListChanged is told that the upstream's list of kind ("tool",
	// "prompt" or "resource") changed.
	ListChanged(kind string)
	// ResourceUpdated is told of the upstream's
	// notifications/resources/updated.
	ResourceUpdated(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest)
}

// Dial is how [Session.Connect] reaches an upstream, and what it asks of
// it.
type Dial struct {
	// Command is a stdio upstream's process, which gets TerminateAfter to
	// exit once its input is closed; nil for an HTTP upstream, at URL
	// through HTTP.
	Command        *exec.Cmd
	TerminateAfter time.Duration
	URL            string
	HTTP           http.RoundTripper
	// Version is the protocol version to ask for; Caps the client's
	// capabilities to offer the upstream (nil: those the client session
	// initialized with).
	Version string
	Caps    *mcp.ClientCapabilities
	// Timeout bounds the setting of the upstream's log level.
	Timeout time.Duration
}

// Session is one upstream session: the gateway's own (Relay.Session nil)
// or a client session's. Set its Relay, then [Session.Connect] it. It
// must not be copied.
type Session struct {
	Relay
	// CS is the SDK's client session, set once Connect succeeded.
	CS *mcp.ClientSession

	client  *mcp.Client
	backlog backlog
	// broken is set once reading from the upstream failed: the session
	// is over. refused is set once an HTTP upstream answered 401 or 403
	// to the gateway's credentials.
	broken, refused atomic.Bool
	// checking is set while Check pings the session.
	checking atomic.Bool
}

// Backlog counts the notifications the session read that its handlers
// have not finished with (at most about maxBacklog, see [backlog.Read]):
// two atomic loads, for a metric.
func (s *Session) Backlog() int {
	return int(max(s.backlog.read.Load()-s.backlog.handled.Load(), 0))
}

// Connect opens the session to the upstream d says, telling h as it
// goes; for a client session it offers the upstream the client's
// capabilities, and relays the upstream's requests to it.
func (s *Session) Connect(ctx context.Context, d Dial, h Host) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "hookflow-gateway", Version: "1"}, s.clientOptions(d.Caps, h))
	s.client = client
	client.AddReceivingMiddleware(s.drained)
	if s.Session != nil {
		client.AddReceivingMiddleware(s.Route)
	}
	client.AddReceivingMiddleware(s.recovering) // the outermost
	t, stderr := s.transport(d, h)
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: d.Version})
	if err != nil {
		if stderr != nil {
			stderr.Flush()
		}
		return err
	}
	s.CS = cs
	if stderr != nil {
		Go(s.Log, "waiting for an upstream process", func() {
			// The session ends when the process does (or the gateway
			// closes it): say how it ended.
			stderr.Ended(cs.Wait())
		})
	}
	if s.Session != nil && cs.InitializeResult() != nil && cs.InitializeResult().Capabilities.Logging != nil {
		// The client's level applies at the gateway, where the messages
		// are sent on: the upstream sends them all.
		lctx, cancel := context.WithTimeout(ctx, d.Timeout)
		_ = cs.SetLoggingLevel(lctx, &mcp.SetLoggingLevelParams{Level: "debug"})
		cancel()
	}
	return nil
}

// clientOptions are the options of s's client: the handlers of what the
// upstream sends, and for a client session's upstream session what its
// client's capabilities (caps, or those it initialized with) offer.
func (s *Session) clientOptions(caps *mcp.ClientCapabilities, h Host) *mcp.ClientOptions {
	opts := &mcp.ClientOptions{
		Logger:                      s.Log,
		ProgressNotificationHandler: s.Progress,
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:                &mcp.ClientCapabilities{},
	}
	opts.ResourceUpdatedHandler = h.ResourceUpdated
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { h.ListChanged("tool") }
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { h.ListChanged("prompt") }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { h.ListChanged("resource") }
	if s.Session == nil {
		return opts
	}
	if caps == nil {
		if ip := s.Session.InitializeParams(); ip != nil {
			caps = ip.Capabilities
		}
	}
	opts.LoggingMessageHandler = s.LogMessage
	if caps == nil {
		return opts
	}
	if caps.Sampling != nil {
		opts.CreateMessageWithToolsHandler = s.Sample
		opts.Capabilities.Sampling = caps.Sampling
	}
	if caps.Elicitation != nil {
		opts.ElicitationHandler = s.Elicit
		opts.ElicitationCompleteHandler = s.ElicitationComplete
		opts.Capabilities.Elicitation = caps.Elicitation
	}
	if caps.RootsV2 != nil {
		r := *caps.RootsV2
		opts.Capabilities.RootsV2 = &r
	}
	return opts
}

// transport is the transport to the upstream: its command over stdio,
// with stderr the log of the process's standard error, or its URL.
func (s *Session) transport(d Dial, h Host) (t mcp.Transport, stderr *stderrLog) {
	incoming := func(ctx context.Context, msg jsonrpc.Message) {
		if r, ok := msg.(*jsonrpc.Request); ok && !r.ID.IsValid() {
			s.backlog.Read(r.Method)
		}
		h.Incoming(ctx, msg)
	}
	if d.Command != nil {
		stderr = captureStderr(s.Log, d.Command)
		t := &mcp.CommandTransport{Command: d.Command, TerminateDuration: d.TerminateAfter}
		return observed{Transport: t, Message: incoming, Ended: s.end}, stderr
	}
	// hookflow's client transport decodes each message once and tells
	// the gateway, with the context of the call it came for.
	return &streamable.ClientTransport{
		Endpoint:   d.URL,
		HTTPClient: &http.Client{Transport: d.HTTP},
		Hooks: streamable.ClientHooks{
			Message: incoming,
			Status:  s.noteStatus,
			Error:   s.markBroken,
		},
	}, nil
}

// Version returns the protocol version the session negotiated.
func (s *Session) Version() string {
	if ir := s.CS.InitializeResult(); ir != nil {
		return ir.ProtocolVersion
	}
	return ""
}

// Broken reports whether reading from the upstream failed: the session
// is over.
func (s *Session) Broken() bool { return s.broken.Load() }

// Wait waits until the session ends, and returns why.
func (s *Session) Wait() error { return s.CS.Wait() }

// Close closes the session; over stdio, it returns once the upstream's
// process ended.
func (s *Session) Close() error { return s.CS.Close() }

// Check pings the session in the background, unless it is over or
// being checked, and closes it when it does not answer within timeout
// (a stdio upstream's process is frozen, say), so that its client
// session's next request opens a new one.
func (s *Session) Check(timeout time.Duration) {
	if s.Broken() || !s.checking.CompareAndSwap(false, true) {
		return
	}
	Go(s.Log, "checking a client's upstream session", func() {
		defer s.checking.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := s.CS.Ping(ctx, nil); err != nil {
			cmp.Or(s.Log, slog.Default()).Warn("gateway: a client session's upstream session does not answer a ping; closing it", slog.Any("err", err))
			_ = s.Close()
		}
	})
}

// Refused reports whether an HTTP upstream answered 401 or 403 to the
// gateway's credentials.
func (s *Session) Refused() bool { return s.refused.Load() }

// RootsChanged tells the upstream that the roots of the client session
// changed, when the client offered it roots with listChanged (a
// notifications/roots/list_changed).
//
// The SDK sends that notification only when a Client's roots change, to
// the sessions of that Client: here CS alone. The client's own list of
// roots is never read, as [Relay.Route] answers the upstream's
// roots/list with the client session's roots: adding one root to it,
// again and again (AddRoots replaces a root of the same URI, and
// notifies), is only the way to send the notification. It waits on the
// upstream: callers call it in the background, so as not to hold up the
// client's session.
func (s *Session) RootsChanged() {
	s.client.AddRoots(&mcp.Root{URI: rootsChangedURI})
}

// rootsChangedURI is the URI of the one root in the list of the SDK
// client of a client session's upstream session; see
// [Session.RootsChanged].
const rootsChangedURI = "hookflow-gateway:roots-changed"

// Drain waits until the client's handlers have finished with the
// notifications that arrived before a call's answer (see [backlog]),
// and the queue of client session ss (nil for none) has sent those they
// queued, for [drainTimeout] at most in all.
func (s *Session) Drain(ss *mcp.ServerSession) {
	deadline := time.Now().Add(drainTimeout)
	s.backlog.Drain(deadline)
	if ss != nil {
		s.Out.Flushed(ss, deadline)
	}
}

// drained counts the notifications the client's handlers finished.
func (s *Session) drained(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		s.backlog.Handled(method)
		return res, err
	}
}

// noteStatus notes an HTTP upstream's refusal of the gateway's
// credentials.
func (s *Session) noteStatus(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		s.refused.Store(true)
	}
}

// markBroken marks s broken when err, an error reading from the
// upstream or reaching it, says the session is over rather than that a
// request was cancelled. The SDK reads before it fails the requests in
// flight, so a request failing with the session sees the mark.
func (s *Session) markBroken(err error) {
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		s.end()
	}
}

// end marks s broken: reading from the upstream failed.
func (s *Session) end() {
	s.broken.Store(true)
	s.backlog.End()
}

// recovering is the receiving middleware of the session's client that
// recovers a panic of the gateway's handlers of what the upstream sends
// (notifications, and sampling, elicitation and roots requests): the
// panic is logged, and a request fails with an internal error instead of
// the process.
func (s *Session) recovering(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				logPanic(s.Log, "handling "+method+" from the upstream", v)
				res, err = nil, fmt.Errorf("gateway: internal error handling %s", method)
			}
		}()
		return next(ctx, method, req)
	}
}
