package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/hookflow/hookflow/internal/streamable"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPTransport selects the streamable HTTP transport under
// [Server.HTTPHandler]: [HTTPTransportHookflow] (the default) or
// [HTTPTransportSDK].
//
// hookflow's transport is the default because it passes the MCP
// conformance suite as the SDK's does (157/157, stateful and stateless,
// direct and through the gateway) at about a third of the bytes per call:
// the SDK's handler decodes each message with a new 32 KiB decoder, twice
// per POST. The SDK's handler stays selectable for at least one release,
// and serves a handler given an EventStore (hookflow's transport does not
// resume streams).
type HTTPTransport uint8

const (
	// HTTPTransportDefault is the zero value: HTTPTransportHookflow.
	HTTPTransportDefault HTTPTransport = iota
	// HTTPTransportSDK is the SDK's mcp.StreamableHTTPHandler, behind
	// hookflow's body bounds and JSON-RPC error bodies.
	HTTPTransportSDK
	// HTTPTransportHookflow is hookflow's own streamable HTTP transport
	// (the SDK's server still runs each session): each POST body is read
	// once, within the same bounds, and decoded once into messages that
	// point into it; a tools/call whose answer is its only message gets a
	// JSON body rather than an SSE stream; a stateless call is cancelled
	// when its client goes away. Stream resumption (Last-Event-ID) is not
	// served.
	HTTPTransportHookflow
)

// String returns "default", "sdk" or "hookflow".
func (t HTTPTransport) String() string {
	switch t {
	case HTTPTransportSDK:
		return "sdk"
	case HTTPTransportHookflow:
		return "hookflow"
	}
	return "default"
}

// callContext is a receiving middleware that puts the request's
// RequestExtra in its context, for hookflow's transport to route what the
// request's handler sends to the request's own HTTP response.
func callContext(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ex := req.GetExtra(); ex != nil && ex.CloseSSEStream != nil {
			ctx = streamable.WithRequest(ctx, ex)
		}
		return next(ctx, method, req)
	}
}

// streamWriteTimeout bounds each write of hookflow's transport to a client
// (an SSE event, a JSON body): a client that stops reading fails its own
// stream after it, and frees the goroutine and the call that wait on it.
const streamWriteTimeout = 30 * time.Second

// newHookflowHandler returns hookflow's streamable transport for s with o
// (defaults applied), sharing the SDK handler's body bounds.
func (s *Server) newHookflowHandler(o *mcp.StreamableHTTPOptions, maxBody int64, maxSessions int, bodyTimeout time.Duration) http.Handler {
	var newID func() string
	if sdk := s.opts.SDK; sdk != nil && sdk.GetSessionID != nil {
		newID = sdk.GetSessionID
	}
	var versions []string
	if sdk := s.opts.SDK; sdk != nil && len(sdk.SupportedProtocolVersions) > 0 {
		versions = sdk.SupportedProtocolVersions
	}
	timeout := o.SessionTimeout
	if timeout < 0 {
		timeout = 0
	}
	br := &bodyReader{max: maxBody, bodies: s.bodies, timeout: bodyTimeout}
	h := streamable.New(streamable.Options{
		Server:                     s.sdk,
		Stateless:                  o.Stateless,
		JSONResponse:               o.JSONResponse,
		SessionTimeout:             timeout,
		MaxSessions:                max(maxSessions, 0),
		Versions:                   versions,
		NewSessionID:               newID,
		ReadBody:                   br.read,
		WriteTimeout:               streamWriteTimeout,
		ParamHeaders:               s.paramHeaders,
		DisableLocalhostProtection: o.DisableLocalhostProtection,
		CrossOriginProtection:      o.CrossOriginProtection,
		EventStore:                 o.EventStore,
		Logger:                     s.logger,
	})
	s.served.addHandler(h)
	return h
}

// paramHeaders returns the Mcp-Param-* header checks of the tool named
// name, compiled from its input schema on first use.
func (s *Server) paramHeaders(name string) *streamable.ParamHeaders {
	e, ok := s.index.Load().tools[name]
	if !ok || e.headers == nil {
		return nil
	}
	return e.headers()
}

// bodyReader reads POST bodies for hookflow's transport with the bounds
// of the SDK transport's wrapper (rpcHandler): a body past max is refused
// 413 (unread when it declares its length), one that takes longer than
// timeout 408, one that finds no room in the bodies in flight 503.
type bodyReader struct {
	max     int64
	bodies  *bodyBudget
	timeout time.Duration
}

func (b *bodyReader) read(w http.ResponseWriter, req *http.Request) ([]byte, streamable.Releaser, bool) {
	hold := bodyHoldOf(req)
	var own *bodyHold // the hold this read releases: none under GuardBodies
	if hold == nil {
		own = &bodyHold{budget: b.bodies}
		hold = own
	}
	var conn readDeadliner
	if b.timeout > 0 {
		if conn = readDeadlinerOf(w); conn != nil && conn.SetReadDeadline(time.Now().Add(b.timeout)) != nil {
			conn = nil
		}
	}
	data, whole, err := readBody(req, b.max, hold)
	_ = req.Body.Close()
	if conn != nil {
		_ = conn.SetReadDeadline(time.Time{})
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		http.Error(w, fmt.Sprintf("the request body did not arrive within %v", b.timeout), http.StatusRequestTimeout)
	case errors.Is(err, errBodyBudget):
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case err == nil && !whole, err != nil && tooLarge(err):
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", b.max), http.StatusRequestEntityTooLarge)
	case err != nil:
		http.Error(w, "failed to read body", http.StatusBadRequest)
	default:
		if own == nil {
			return data, nil, true
		}
		return data, own, true
	}
	own.release()
	return nil, nil, false
}

// tooLarge reports whether err is http.MaxBytesReader's: a function of
// its own, so that the target errors.As needs is made on this path only.
func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// Release gives back what the hold reserved (for hookflow's transport).
func (h *bodyHold) Release() { h.release() }

// MarshalText returns the name String gives.
func (t HTTPTransport) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads "sdk", "hookflow" or "default" (or empty).
func (t *HTTPTransport) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "default":
		*t = HTTPTransportDefault
	case "sdk":
		*t = HTTPTransportSDK
	case "hookflow":
		*t = HTTPTransportHookflow
	default:
		return fmt.Errorf("unknown HTTP transport %q: sdk or hookflow", b)
	}
	return nil
}

// CallCheck looks at a POST that is one tools/call before the server runs
// the call, once hookflow's transport has decoded the body, and returns
// the handler that answers the POST in the call's place, or nil to let
// the call run. id is the call's ID, tool the tool it names and args its
// arguments, a slice of the body that must not be kept. The auth plugin's
// scope challenge is one.
type CallCheck func(r *http.Request, id jsonrpc.ID, tool string, args json.RawMessage) http.Handler

// CheckCalls makes h, a handler HTTPHandler returned, run check on each
// POST that is one tools/call (a batch's calls are refused in-band by the
// hooks), and reports whether it will. It reports false, and changes
// nothing, when h is not hookflow's transport (HTTPTransportSDK, a handler
// with an EventStore, any other handler): the caller must then read the
// body itself, as framework.ReadBody lets it do once for all. A later call
// replaces the check; nil removes it.
func CheckCalls(h http.Handler, check CallCheck) bool {
	switch h := h.(type) {
	case *adminHandler:
		return CheckCalls(h.next, check)
	case *streamable.Handler:
		h.SetCallCheck(streamable.CallCheck(check))
		return true
	}
	return false
}
