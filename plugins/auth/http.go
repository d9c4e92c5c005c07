package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// maxPeek bounds how much of a POST body the scope challenge reads to find
// a tools/call; it is the SDK's default MaxRequestBodyBytes. A larger body
// is passed on unread and checked in-band.
const maxPeek = 4 << 20

// Handler starts srv, which must have the plugin attached (srv.Use), and
// returns its streamable HTTP handler behind [Plugin.Middleware]. It fails
// when the configuration has no Verifier or names tools the server lacks.
// opts are the SDK's options for the handler, handed unchanged to
// framework.Server.HTTPHandler: nil gets that method's defaults for nil
// options (PropagateRequestCancellation among them), and a zero
// SessionTimeout becomes [DefaultSessionTimeout]. Handler logs a warning
// when Config.ResourceMetadataURL is unset (unless the plugin checks
// Config.Tokens, which no OAuth client can get), and when
// Config.ScopeChallenge is on without Config.Audit. With Config.Tokens
// and neither a Verifier nor a ResourceMetadataURL, a 401 says in its
// challenge's error_description and in its body that the server offers
// no OAuth and wants a bearer token its operator issued, so that a client
// does not try OAuth discovery for nothing.
func (p *Plugin) Handler(srv *framework.Server, opts *mcp.StreamableHTTPOptions) (http.Handler, error) {
	if _, err := p.Middleware(); err != nil {
		return nil, err
	}
	// nil stays nil: the framework's defaults for no options are more
	// than zero values.
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		return nil, err
	}
	if a := p.att.Load(); a == nil || a.srv != srv {
		return nil, errors.New("auth: Handler: the plugin is not attached to this server; call srv.Use(plugin) (or app.Use) before serving")
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	p.warn()
	// On hookflow's transport the scope challenge runs on the body the
	// transport decodes once; elsewhere the middleware reads it.
	challenge := p.cfg.ScopeChallenge && !p.cfg.Conceal
	if challenge && framework.CheckCalls(h, p.checkCall) {
		challenge = false
	}
	mw := p.middleware(challenge)
	if !challenge {
		// The middleware reads no body: the server's handler bounds its
		// own reads.
		return mw(h), nil
	}
	// The scope challenge reads bodies before the server's handler does:
	// the guard makes those reads count against the server's bound on
	// bodies in flight.
	return srv.GuardBodies(mw(h)), nil
}

// warn logs the configurations that serve HTTP but leave a gap: no
// resource metadata (OAuth clients cannot find the authorization server),
// or a scope challenge whose refusals nobody audits.
func (p *Plugin) warn() {
	l := p.logger()
	if p.cfg.ResourceMetadataURL == "" && !p.static() {
		l.Warn("auth: Config.ResourceMetadataURL is not set: 401 responses name no resource_metadata, so OAuth clients cannot discover the authorization server; serve the metadata (e.g. the SDK's auth.ProtectedResourceMetadataHandler) outside the middleware and set its URL")
	}
	if p.cfg.ScopeChallenge && !p.cfg.Conceal && p.cfg.Audit == nil {
		l.Warn("auth: Config.ScopeChallenge is on without Config.Audit: calls refused with HTTP 403 never reach the server and leave no audit event")
	}
}

// static reports whether the plugin checks static tokens only
// (Config.Tokens, no Verifier and no resource metadata): no OAuth client
// can get a token, and its 401s say what to send instead.
func (p *Plugin) static() bool {
	return p.given.Verifier == nil && len(p.given.Tokens) > 0 && p.cfg.ResourceMetadataURL == ""
}

// staticHint is what a 401 of a plugin checking static tokens tells the
// client, in its error_description and body: there is no OAuth to try.
func staticHint(withToken bool) string {
	if withToken {
		return "the bearer token is not one of this server's tokens; it offers no OAuth: send Authorization: Bearer <token> with a token its operator issued"
	}
	return "this server needs a bearer token its operator issued; it offers no OAuth: send Authorization: Bearer <token>"
}

// Middleware returns HTTP middleware for a handler serving the server the
// plugin is attached to, for when the handler is built by hand (e.g. to
// mount it beside other routes). In order, a request goes through:
//
//  1. the SDK's auth.RequireBearerToken with the configured Verifier: no
//     token or a bad one gets 401, a token without Config.Scopes 403, both
//     with a WWW-Authenticate challenge (RFC 6750: error="invalid_token" or
//     "insufficient_scope"; the scope, which in a 401 is Config.Scopes
//     followed by Config.ScopesSupported; and resource_metadata when set);
//  2. the scope challenge: a tools/call of a tool whose scopes the token
//     lacks gets 403 with `WWW-Authenticate: Bearer
//     error="insufficient_scope", scope="…"` and a JSON-RPC error body
//     (code [CodeInsufficientScope]), which the SDK's client turns into a
//     call error without dropping the session, and its OAuth handler into
//     step-up authorization (only with Config.ScopeChallenge, never with
//     Conceal), and the refusal goes to Config.Audit;
//  3. the Authorization header is removed, so that hooks reading
//     Request().Header (an audit plugin) never see the token, and nothing
//     can pass it on to another service.
//
// Verifier errors reach the client as a fixed text ("invalid token",
// "oauth error" or "token verification failed") and the log without their
// text, which may quote the token: the log has the token's SHA-256
// fingerprint instead, and the error's slog.LogValuer value when it has
// one.
//
// The scope challenge reads the body before the server's handler; wrap the
// result in the server's framework.Server.GuardBodies so that those reads
// count against its bound on bodies in flight, as Handler does.
func (p *Plugin) Middleware() (func(http.Handler) http.Handler, error) {
	if p.cfg.Verifier == nil {
		return nil, errors.New("auth: Verifier: required to serve HTTP (a func checking bearer tokens, e.g. against your authorization server, or tokens)")
	}
	if err := p.given.Validate(); err != nil {
		return nil, errors.Join(errors.New("auth: bad configuration"), err)
	}
	return p.middleware(p.cfg.ScopeChallenge && !p.cfg.Conceal), nil
}

// middleware is Middleware's, with the scope challenge read from the body
// when challenge is set.
func (p *Plugin) middleware(challenge bool) func(http.Handler) http.Handler {
	require := sdkauth.RequireBearerToken(p.verify, &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL:    p.cfg.ResourceMetadataURL,
		Scopes:                 p.cfg.Scopes,
		AllowMissingExpiration: p.cfg.AllowMissingExpiration,
		ClockSkew:              p.cfg.ClockSkew,
	})
	return func(next http.Handler) http.Handler {
		inner := require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Past the SDK's check: hand the real writer on.
			if cw, ok := w.(*challengeWriter); ok {
				w = cw.ResponseWriter
			}
			p.serveVerified(w, r, next, challenge)
		}))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(&challengeWriter{ResponseWriter: w, p: p, req: r}, r)
		})
	}
}

// verify wraps the configured verifier: its errors are replaced by fixed
// ones, since the SDK writes the error's text into the 401 body, and are
// logged without their text (see logRejection).
func (p *Plugin) verify(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
	ti, err := p.cfg.Verifier(ctx, token, r)
	if err == nil {
		return ti, nil
	}
	switch {
	case errors.Is(err, sdkauth.ErrInvalidToken):
		p.logRejection(ctx, slog.LevelDebug, "auth: token rejected", err, token, r)
		return nil, sdkauth.ErrInvalidToken
	case errors.Is(err, sdkauth.ErrOAuth):
		p.logRejection(ctx, slog.LevelWarn, "auth: token rejected (oauth error)", err, token, r)
		return nil, sdkauth.ErrOAuth
	default:
		p.logRejection(ctx, slog.LevelError, "auth: token verification failed", err, token, r)
		return nil, errVerification
	}
}

var errVerification = errors.New("token verification failed")

// logRejection logs a verifier's error without its text: verifiers quote
// the token they reject, in encodings no redaction can list (%q escapes
// some bytes, %x hex-encodes them all). It logs the token's fingerprint
// (the first 12 hex digits of its SHA-256, to match against the tokens an
// operator issued) and, when the error implements slog.LogValuer, the
// value the verifier chose to make loggable.
func (p *Plugin) logRejection(ctx context.Context, level slog.Level, msg string, err error, token string, r *http.Request) {
	l := p.logger()
	if !l.Enabled(ctx, level) {
		return
	}
	sum := sha256.Sum256([]byte(token))
	attrs := []slog.Attr{
		slog.String("token_sha256", hex.EncodeToString(sum[:6])),
		slog.String("remote", r.RemoteAddr),
	}
	var lv slog.LogValuer
	if errors.As(err, &lv) {
		attrs = append(attrs, slog.Any("reason", lv))
	}
	l.LogAttrs(ctx, level, msg, attrs...)
}

func (p *Plugin) logger() *slog.Logger {
	if a := p.att.Load(); a != nil {
		return a.logger
	}
	if p.cfg.Logger != nil {
		return p.cfg.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// serveVerified runs the scope challenge when challenge is set, strips
// the Authorization header and calls next.
func (p *Plugin) serveVerified(w http.ResponseWriter, r *http.Request, next http.Handler, challenge bool) {
	if challenge && r.Method == http.MethodPost {
		if p.challenge(w, r) {
			return
		}
	}
	if r.Header.Get("Authorization") != "" {
		r2 := new(http.Request)
		*r2 = *r
		r2.Header = withoutAuthorization(r.Header)
		r = r2
	}
	next.ServeHTTP(w, r)
}

// withoutAuthorization returns a copy of h without its Authorization
// header. The values are r's own, each capped at its length, so that an
// Add to the copy appends to a new array: the one allocation is the map.
func withoutAuthorization(h http.Header) http.Header {
	c := make(http.Header, len(h)-1)
	for k, v := range h {
		if k != "Authorization" {
			c[k] = v[:len(v):len(v)]
		}
	}
	return c
}

// challenge answers 403 when r's body is a tools/call of a tool whose
// scopes the verified token lacks, and reports whether it did. It restores
// the body it read.
func (p *Plugin) challenge(w http.ResponseWriter, r *http.Request) bool {
	a := p.att.Load()
	if a == nil || r.Body == nil || r.Body == http.NoBody {
		return false
	}
	// Read once: the server's handler behind gets the same bytes.
	buf, whole, err := framework.ReadBody(r, maxPeek)
	if err != nil || !whole || !bytes.Contains(buf, []byte(`tools/call`)) {
		return false
	}
	// The tool's name is all a decision needs; the arguments are decoded
	// for the audit event of a refusal only.
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	// A batch (a JSON array) does not decode: it is checked in-band.
	if segjson.Unmarshal(buf, &msg) != nil || msg.Method != "tools/call" || len(msg.ID) == 0 {
		return false
	}
	ti := sdkauth.TokenInfoFromContext(r.Context())
	denied := p.denial(a, msg.Params.Name, ti)
	if denied == nil {
		return false
	}
	var args struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if p.cfg.Audit != nil {
		_ = json.Unmarshal(buf, &args)
	}
	p.refuse(w, r, a, ti, denied, msg.ID, args.Params.Arguments)
	return true
}

// checkCall is the scope challenge as hookflow's transport runs it, on
// the body it decoded (see framework.CheckCalls).
func (p *Plugin) checkCall(r *http.Request, id jsonrpc.ID, tool string, args json.RawMessage) http.Handler {
	a := p.att.Load()
	if a == nil || r.Method != http.MethodPost {
		return nil
	}
	ti := sdkauth.TokenInfoFromContext(r.Context())
	denied := p.denial(a, tool, ti)
	if denied == nil {
		return nil
	}
	rawID, err := json.Marshal(id.Raw())
	if err != nil {
		return nil // no ID to answer with: the in-band refusal answers
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.refuse(w, r, a, ti, denied, rawID, args)
	})
}

// refuse answers the tools/call with the given id (its JSON) that denied
// refuses with HTTP 403 insufficient_scope, after logging it and
// recording it for the audit with its arguments.
func (p *Plugin) refuse(w http.ResponseWriter, r *http.Request, a *attachment, ti *sdkauth.TokenInfo, denied *ScopeError, id json.RawMessage, args json.RawMessage) {
	a.logger.LogAttrs(r.Context(), slog.LevelDebug, "auth: call denied (HTTP 403 insufficient_scope)",
		slog.String("tool", denied.Tool), slog.String("principal", principal(ti)), slog.Any("missing", denied.Missing))
	if p.cfg.Audit != nil {
		p.cfg.Audit.RecordRefusal(r.Context(), flows.Refusal{
			Flow:   flows.ToolsCallTool,
			Entity: denied.Tool,
			Request: &flows.Request{
				ID:        a.idPrefix + strconv.FormatUint(a.ids.Add(1), 10),
				Method:    "tools/call",
				SessionID: r.Header.Get("Mcp-Session-Id"),
				TokenInfo: ti,
			},
			By:   a.challenger,
			Err:  denied,
			Args: args,
		})
	}
	params := []string{param("error", "insufficient_scope"), param("scope", strings.Join(denied.Required, " "))}
	if p.cfg.ResourceMetadataURL != "" {
		params = append(params, param("resource_metadata", p.cfg.ResourceMetadataURL))
	}
	params = append(params, param("error_description", denied.Error()))
	h := w.Header()
	h.Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	h.Set("Content-Type", "application/json")
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    CodeInsufficientScope,
			"message": denied.Error(),
			"data": map[string]any{
				"tool":           denied.Tool,
				"requiredScopes": denied.Required,
				"missingScopes":  denied.Missing,
			},
		},
	})
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}

func principal(ti *sdkauth.TokenInfo) string {
	if ti == nil {
		return ""
	}
	return ti.UserID
}

// challengeWriter completes the WWW-Authenticate challenge of the SDK's
// 401 and 403 responses: the SDK sends none without a resource metadata URL
// or scopes, and never the RFC 6750 error code that clients (the SDK's own
// OAuth handler among them) use to tell a bad token from a missing scope.
//
// The scope parameter of a 401 names Config.Scopes, which every request
// needs, then Config.ScopesSupported: MCP clients ask for the scopes a 401
// names, and fall back on the metadata's scopes_supported only when it
// names none. The 401 is answered before the body is read (the request is
// not authenticated), so the scopes of the tool a tools/call names are
// not known there; a token without them gets the 403 step-up challenge,
// or the in-band refusal. A 403 of the SDK's check names Config.Scopes.
type challengeWriter struct {
	http.ResponseWriter
	p   *Plugin
	req *http.Request
	// written: WriteHeader wrote the body (a static tokens' 401).
	written bool
}

func (cw *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		var params []string
		scopes := cw.p.cfg.Scopes
		switch {
		case code == http.StatusForbidden:
			params = append(params, param("error", "insufficient_scope"))
		case hasBearer(cw.req):
			params = append(params, param("error", "invalid_token"))
		}
		if code == http.StatusUnauthorized {
			scopes = union(scopes, cw.p.cfg.ScopesSupported)
		}
		if len(scopes) > 0 {
			params = append(params, param("scope", strings.Join(scopes, " ")))
		}
		if cw.p.cfg.ResourceMetadataURL != "" {
			params = append(params, param("resource_metadata", cw.p.cfg.ResourceMetadataURL))
		}
		static := code == http.StatusUnauthorized && cw.p.static()
		if static {
			params = append(params, param("error_description", staticHint(hasBearer(cw.req))))
		}
		v := "Bearer"
		if len(params) > 0 {
			v += " " + strings.Join(params, ", ")
		}
		cw.Header().Set("WWW-Authenticate", v)
		if static {
			// The SDK's body ("no bearer token") names nothing to do.
			cw.ResponseWriter.WriteHeader(code)
			_, _ = io.WriteString(cw.ResponseWriter, staticHint(hasBearer(cw.req))+"\n")
			cw.written = true
			return
		}
	}
	cw.ResponseWriter.WriteHeader(code)
}

// Write writes b, unless WriteHeader wrote the body itself.
func (cw *challengeWriter) Write(b []byte) (int, error) {
	if cw.written {
		return len(b), nil
	}
	return cw.ResponseWriter.Write(b)
}

// param returns the auth-param name="value" of a Bearer challenge. RFC
// 6750 §3 allows in its quoted values printable ASCII but the double
// quote and the backslash, so no value is escaped: scopes and the
// resource metadata URL are checked to have neither when configured, and
// in a description a double quote becomes an apostrophe and any other
// character outside the set a question mark.
func param(name, value string) string {
	var b strings.Builder
	b.Grow(len(name) + len(value) + 3)
	b.WriteString(name)
	b.WriteString(`="`)
	for _, r := range value {
		switch {
		case r == '"':
			b.WriteByte('\'')
		case r < 0x20 || r > 0x7e || r == '\\':
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Unwrap lets http.ResponseController reach the real writer.
func (cw *challengeWriter) Unwrap() http.ResponseWriter { return cw.ResponseWriter }

func hasBearer(r *http.Request) bool {
	f := strings.Fields(r.Header.Get("Authorization"))
	return len(f) == 2 && strings.EqualFold(f[0], "bearer")
}
