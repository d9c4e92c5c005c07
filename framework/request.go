package framework

import (
	"crypto/rand"
	"encoding/hex"
	"reflect"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// newStamp returns a random prefix for request IDs, so IDs from two server
// processes do not collide in shared logs.
func newStamp() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestInfo builds the flows.Request of an SDK request. It mints the
// hookflow request ID: "<stamp>-<n>", n counting from 1 in base 36.
func (s *Server) requestInfo(method string, req mcp.Request) *flows.Request {
	n := s.nextID.Add(1)
	r := &flows.Request{
		ID:     s.idStamp + "-" + strconv.FormatUint(n, 36),
		Method: method,
	}
	if req == nil {
		return r
	}
	r.SDK = req
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		r.Session = ss
		r.SessionID = ss.ID()
	}
	var meta map[string]any
	if p := req.GetParams(); !isNilParams(p) {
		r.ProgressToken = progressToken(p)
		meta = p.GetMeta()
	}
	if ex := req.GetExtra(); ex != nil {
		r.TokenInfo = ex.TokenInfo
		r.Header = ex.Header
	}
	if cr, ok := req.(clientInfoer); ok {
		// Decoded through a cache: see meta.go.
		r.ClientInfo = clientInfoCache.get(meta, mcp.MetaKeyClientInfo, cr.ClientInfo)
		r.ClientCapabilities = clientCapsCache.get(meta, mcp.MetaKeyClientCapabilities, cr.ClientCapabilities)
		r.ProtocolVersion = cr.ProtocolVersion()
	}
	if ip, ok := req.GetParams().(*mcp.InitializeParams); ok && ip != nil && r.ClientInfo == nil {
		s.initializing(r, ip)
	}
	return r
}

// protocolVersions returns the protocol versions the server was configured
// to speak (mcp.ServerOptions.SupportedProtocolVersions), newest first, or
// nil for every version the SDK speaks.
func (s *Server) protocolVersions() []string {
	if sdk := s.opts.SDK; sdk != nil && len(sdk.SupportedProtocolVersions) > 0 {
		return sdk.SupportedProtocolVersions
	}
	return nil
}

// withoutInitialize is the first protocol version without initialize: its
// requests carry the client's info in their _meta.
const withoutInitialize = "2026-07-28"

// initializing fills r, the request info of an initialize request, from
// the request's own params. The SDK keeps a session's initialize params
// only once its initialize handler has run, after the hooks of the
// initialize flow's first stages, and after r is built: read from the
// session, the client would be unknown to every hook of the flow.
// ProtocolVersion is the version the SDK's handler will answer: the
// client's when the server speaks it, else the newest the server speaks
// that has initialize.
func (s *Server) initializing(r *flows.Request, ip *mcp.InitializeParams) {
	r.ClientInfo = ip.ClientInfo
	r.ClientCapabilities = ip.Capabilities
	versions := s.protocolVersions()
	if versions == nil {
		versions = mcp.SupportedProtocolVersions()
	}
	r.ProtocolVersion = "2025-11-25"
	if slices.Contains(versions, ip.ProtocolVersion) && ip.ProtocolVersion < withoutInitialize {
		r.ProtocolVersion = ip.ProtocolVersion
	} else if i := slices.IndexFunc(versions, func(v string) bool { return v < withoutInitialize }); i >= 0 {
		r.ProtocolVersion = versions[i]
	}
}

// isNilParams reports whether p is nil or a typed nil: a list request
// without params arrives as a nil *mcp.ListToolsParams, whose methods
// dereference it.
func isNilParams(p mcp.Params) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// clientInfoer is what every *mcp.ServerRequest[P] has.
type clientInfoer interface {
	ClientInfo() *mcp.Implementation
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}

// progressToken returns p's progress token; p is not nil.
func progressToken(p mcp.Params) any {
	if g, ok := p.(interface{ GetProgressToken() any }); ok {
		return g.GetProgressToken()
	}
	return nil
}

// Progress reports progress on the request c runs for, when the client asked
// for it with a progress token; otherwise (or when c is nil) it does
// nothing. total may be 0 when unknown.
func Progress(c *flows.Context, progress, total float64, message string) error {
	if c == nil {
		return nil
	}
	r := c.Request()
	if r.Session == nil || r.ProgressToken == nil {
		return nil
	}
	return r.Session.NotifyProgress(c.Context(), &mcp.ProgressNotificationParams{
		ProgressToken: r.ProgressToken, Progress: progress, Total: total, Message: message,
	})
}

// Log sends a log message to the client of the request c runs for (subject
// to the level the client set) and does nothing when c is nil or the run has
// no session.
func Log(c *flows.Context, level mcp.LoggingLevel, data any) error {
	if c == nil {
		return nil
	}
	r := c.Request()
	if r.Session == nil {
		return nil
	}
	return r.Session.Log(c.Context(), &mcp.LoggingMessageParams{Level: level, Data: data, Logger: "hookflow"})
}
