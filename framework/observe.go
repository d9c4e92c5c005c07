package framework

import (
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the kind of transport a request reached the server over, as
// an observer (a tracer, a metrics plugin) reports it; see
// [Server.TransportOf].
type Transport uint8

const (
	// TransportUnknown is a transport hookflow cannot name: one given to
	// Run or Connect that is not one of the SDK's stream transports, or a
	// server given transports of more than one kind.
	TransportUnknown Transport = iota
	// TransportPipe is a byte stream between two processes or within one:
	// mcp.StdioTransport, mcp.IOTransport and mcp.InMemoryTransport.
	TransportPipe
	// TransportHTTP is streamable HTTP, as [Server.HTTPHandler] serves it.
	TransportHTTP
)

// String returns "unknown", "pipe" or "http".
func (t Transport) String() string {
	switch t {
	case TransportPipe:
		return "pipe"
	case TransportHTTP:
		return "http"
	}
	return "unknown"
}

// TransportOf returns the kind of transport req reached s over:
// TransportHTTP for a request the streamable HTTP handler received (it
// carries the HTTP request's headers), else the kind of the transports
// given to [Server.Run] and [Server.Connect]: TransportPipe when each of
// them is stdio, an io stream or in memory, TransportUnknown otherwise
// (and for a nil req). It reads one atomic word and allocates nothing, so
// an observer may call it on every request.
func (s *Server) TransportOf(req mcp.Request) Transport {
	if req == nil {
		return TransportUnknown
	}
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		return TransportHTTP
	}
	if s.served.kinds.Load() == 1<<TransportPipe {
		return TransportPipe
	}
	return TransportUnknown
}

// served records the kinds of the transports given to Run and Connect, as
// a set of Transport bits; the SDK tells a handler nothing of the
// connection a request came on.
type served struct{ kinds atomic.Uint32 }

// note adds the kind of t.
func (v *served) note(t mcp.Transport) { v.kinds.Or(1 << kindOf(t)) }

// kindOf returns the kind of a transport given to Run or Connect.
func kindOf(t mcp.Transport) Transport {
	switch t := t.(type) {
	case *mcp.StdioTransport, *mcp.IOTransport, *mcp.InMemoryTransport:
		return TransportPipe
	case *mcp.LoggingTransport:
		if t != nil {
			return kindOf(t.Transport)
		}
	}
	return TransportUnknown
}
