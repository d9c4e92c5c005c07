package framework

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/internal/streamable"
)

// DefaultMaxSessions is the bound on the sessions a server's HTTP handler
// keeps open at once, when [Options.MaxSessions] is 0. A session holds about
// 16 KB (its state and a goroutine) until it ends or sits idle for its
// SessionTimeout: 10,000 is about 160 MB.
const DefaultMaxSessions = 10_000

// DefaultBodyReadTimeout is how long a request body may take to arrive,
// when [Options.BodyReadTimeout] is 0: 4 MiB (the default body limit) at
// about 140 KB/s.
const DefaultBodyReadTimeout = 30 * time.Second

// DefaultMaxUnsentBytes is the bound on the bytes waiting to be written to
// one response stream whose client does not read, when
// [Options.MaxUnsentBytes] is 0.
const DefaultMaxUnsentBytes = 4 << 20

// DefaultSessionTimeout is how long a stateful HTTP session may stay idle
// (no HTTP request from its client) before [Server.HTTPHandler] closes it,
// when the options give no SessionTimeout. An abandoned session otherwise
// keeps a goroutine and its state for the life of the process.
const DefaultSessionTimeout = 30 * time.Minute

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

// newHTTPHandler returns hookflow's streamable transport for s with opts
// (nil: the zero options), its defaults applied: SessionTimeout
// DefaultSessionTimeout, the body bounds of the options and s's Options,
// and origins (Options.AllowedOrigins) as the CrossOriginProtection when
// not nil.
func (s *Server) newHTTPHandler(opts *mcp.StreamableHTTPOptions, origins *http.CrossOriginProtection) http.Handler {
	var o mcp.StreamableHTTPOptions
	if opts != nil {
		o = *opts
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if origins != nil {
		o.CrossOriginProtection = origins
	}
	maxBody := o.MaxRequestBodyBytes
	switch {
	case maxBody == 0:
		maxBody = mcp.DefaultMaxRequestBodyBytes
	case maxBody < 0:
		maxBody = -1
	}
	bodyTimeout := s.opts.BodyReadTimeout
	switch {
	case bodyTimeout == 0:
		bodyTimeout = DefaultBodyReadTimeout
	case bodyTimeout < 0:
		bodyTimeout = 0
	}
	maxUnsent := s.opts.MaxUnsentBytes
	if maxUnsent == 0 {
		maxUnsent = DefaultMaxUnsentBytes
	}
	maxSessions := s.opts.MaxSessions
	if maxSessions == 0 {
		maxSessions = DefaultMaxSessions
	}
	var newID func() string
	if sdk := s.opts.SDK; sdk != nil && sdk.GetSessionID != nil {
		newID = sdk.GetSessionID
	}
	versions := s.protocolVersions()
	hh := &httpHandler{srv: s, body: bodyReader{max: maxBody, bodies: s.bodies, timeout: bodyTimeout}}
	hh.transport = streamable.New(streamable.Options{
		Server:                     s.sdk,
		Stateless:                  o.Stateless,
		JSONResponse:               o.JSONResponse,
		SessionTimeout:             max(o.SessionTimeout, 0),
		MaxSessions:                max(maxSessions, 0),
		Versions:                   versions,
		NewSessionID:               newID,
		Host:                       hh,
		WriteTimeout:               streamWriteTimeout,
		MaxUnsentBytes:             max(maxUnsent, 0),
		DisableLocalhostProtection: o.DisableLocalhostProtection,
		CrossOriginProtection:      o.CrossOriginProtection,
		EventStore:                 o.EventStore,
		Logger:                     s.logger,
	})
	s.served.addHandler(hh.transport)
	var h http.Handler = hh
	if a := s.opts.Admin; a != nil && a.ExplainPath != "" {
		h = &adminHandler{srv: s, opts: *a, next: h}
	}
	return h
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
// nothing, when h is some other handler (one that wraps HTTPHandler's,
// say): the caller must then read the body itself, as framework.ReadBody
// lets it do once for all. A later call replaces the check; nil removes
// it.
func CheckCalls(h http.Handler, check CallCheck) bool {
	switch h := h.(type) {
	case *adminHandler:
		return CheckCalls(h.next, check)
	case *httpHandler:
		h.setCheck(check)
		return true
	}
	return false
}
