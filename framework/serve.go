package framework

import (
	"net/http"
	"time"
)

// The bounds NewHTTPServer sets.
const (
	// serveReadHeaderTimeout bounds how long a request's line and headers
	// may take to arrive.
	serveReadHeaderTimeout = 10 * time.Second
	// serveIdleTimeout bounds how long a kept-alive connection may wait
	// for its next request.
	serveIdleTimeout = 2 * time.Minute
	// serveMaxHeaderBytes bounds a request's line and headers: room for
	// a large bearer token and 2026-07-28's Mcp-Param-* headers, a
	// sixteenth of net/http's 1 MiB default.
	serveMaxHeaderBytes = 64 << 10
)

// NewHTTPServer returns an http.Server that serves h on addr with the
// bounds a server open to untrusted clients needs, which net/http's zero
// values leave out:
//
//   - ReadHeaderTimeout 10 s: a client that dribbles its request line and
//     headers (a byte a second) is cut off then, where http.ListenAndServe
//     would hold its connection and goroutine for ever;
//   - IdleTimeout 2 minutes: a kept-alive connection waiting for its next
//     request is closed then;
//   - MaxHeaderBytes 64 KiB: a request's line and headers past it get 431.
//
// ReadTimeout and WriteTimeout stay 0, on purpose: each bounds a whole
// request or response from the moment its headers are read, so either
// would end every SSE stream that outlives it (the GET stream,
// subscriptions/listen, a long call sending progress, the console's live
// view): past ReadTimeout net/http cancels the request's context, past
// WriteTimeout its writes fail. The bounds that take their place are per
// request and per write: [Options.BodyReadTimeout] bounds how long a
// body may take to arrive, and hookflow's transport sets a 30 s deadline
// on each write to a client, so a client that stops reading fails its own
// stream, not the server. A handler of your own next to the MCP endpoint
// that writes large bodies sets its own deadline with
// http.ResponseController.
//
// NewHTTPServer returns the server rather than serving it so that the
// caller sets what else it needs (TLSConfig, ErrorLog, BaseContext, a
// listener of its own with Serve) and shuts it down with Shutdown. Every
// example, the gateway and the console serve through it.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: serveReadHeaderTimeout,
		IdleTimeout:       serveIdleTimeout,
		MaxHeaderBytes:    serveMaxHeaderBytes,
	}
}
