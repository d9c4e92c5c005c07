package flows

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Request is what hookflow knows about the MCP request a run serves. The
// framework fills it before the first stage; hooks read it with
// [Context.Request] and must not modify it.
type Request struct {
	// ID is minted by hookflow for every request (the MCP SDK does not expose
	// the JSON-RPC id). It is unique within a server's lifetime and appears in
	// logs and audit events.
	ID string
	// Method is the MCP method, e.g. "tools/call".
	Method string
	// Session is the MCP session the request arrived on. It is nil in tests
	// that run a flow without a server.
	Session *mcp.ServerSession
	// SessionID is the transport's session ID: empty over stdio, in-memory
	// transports and stateless HTTP.
	SessionID string
	// ProgressToken is the client's progress token, or nil when it sent none.
	ProgressToken any
	// ClientInfo and ClientCapabilities describe the client, from initialize
	// or, on protocol versions without initialize, from the request's _meta.
	ClientInfo         *mcp.Implementation
	ClientCapabilities *mcp.ClientCapabilities
	// ProtocolVersion is the negotiated MCP protocol version.
	ProtocolVersion string
	// TokenInfo is the verified bearer token over authenticated HTTP, else nil.
	TokenInfo *auth.TokenInfo
	// Header holds the HTTP request headers over HTTP transports, else nil.
	Header http.Header
	// SDK is the MCP SDK's own request, e.g. a *mcp.CallToolRequest for
	// tools/call; nil in runs without one (tests that run a flow directly).
	SDK mcp.Request
}

// Principal returns the authenticated user's ID from the bearer token, or ""
// when the request is not authenticated.
func (r *Request) Principal() string {
	if r == nil || r.TokenInfo == nil {
		return ""
	}
	return r.TokenInfo.UserID
}

// ClientID returns the OAuth client the bearer token was issued to, from
// TokenInfo.Extra["client_id"] (set by verifiers that know it, such as
// plugins/auth/oauth's), or "" when the request is not authenticated or
// its verifier did not say.
func (r *Request) ClientID() string {
	if r == nil || r.TokenInfo == nil {
		return ""
	}
	id, _ := r.TokenInfo.Extra["client_id"].(string)
	return id
}

// Claims returns the claims of the request's bearer token as its verifier
// decoded them, from TokenInfo.Extra["claims"]: a JWT's payload or an
// introspection response (plugins/auth/oauth), a static token's claims
// (plugins/auth). It returns nil when the request is not authenticated or
// its verifier gave none. The map is shared by the requests made with the
// same token: do not modify it.
func (r *Request) Claims() map[string]any {
	if r == nil || r.TokenInfo == nil {
		return nil
	}
	c, _ := r.TokenInfo.Extra["claims"].(map[string]any)
	return c
}
