package framework

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/internal/streamable"
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

// CallOf returns the JSON-RPC ID of req and the address of the HTTP
// client that sent it (client is the host, port its port, "" when the
// address has none), while req is being handled: an observer puts them on
// its span (jsonrpc.request.id, client.address, client.port). ok is true
// only for a request that came over [Server.HTTPHandler]'s transport;
// the SDK's transports tell a handler neither.
func (s *Server) CallOf(req mcp.Request) (id jsonrpc.ID, client, port string, ok bool) {
	if req == nil || req.GetExtra() == nil {
		return jsonrpc.ID{}, "", "", false
	}
	s.served.mu.Lock()
	hs := s.served.handlers
	s.served.mu.Unlock()
	for _, h := range hs {
		if id, addr, ok := h.Call(req); ok {
			if host, p, err := net.SplitHostPort(addr); err == nil {
				return id, host, p, true
			}
			return id, addr, "", true
		}
	}
	return jsonrpc.ID{}, "", "", false
}

// served records the kinds of the transports given to Run and Connect, as
// a set of Transport bits (the SDK tells a handler nothing of the
// connection a request came on), and the handlers of hookflow's HTTP
// transport that HTTPHandler made, which know more (CallOf).
type served struct {
	kinds atomic.Uint32

	mu       sync.Mutex
	handlers []*streamable.Handler
}

// addHandler records h, which HTTPHandler made.
func (v *served) addHandler(h *streamable.Handler) {
	v.mu.Lock()
	v.handlers = append(v.handlers[:len(v.handlers):len(v.handlers)], h)
	v.mu.Unlock()
}

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
