package streamable

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
	// lastEventIDHeader is Last-Event-ID in Go's canonical form, which
	// net/http looks up without making a copy of the key.
	lastEventIDHeader = "Last-Event-Id"
	// newProtocol is the first protocol version without sessions, where
	// each request carries its version in _meta.
	newProtocol = "2026-07-28"
	// oldestBatchless is the first version without JSON-RPC batches.
	oldestBatchless = "2025-06-18"
	// defaultVersion is the version of a request that names none.
	defaultVersion = "2025-03-26"
)

// Options configures a [Handler].
type Options struct {
	// Server runs every session.
	Server *mcp.Server
	// Stateless serves each POST with a session of its own, closed when
	// the POST ends: no Mcp-Session-Id, no GET stream, no DELETE.
	Stateless bool
	// JSONResponse answers every POST with one JSON body; what handlers
	// send while a call runs goes to the GET stream.
	JSONResponse bool
	// SessionTimeout closes a stateful session that has had no HTTP
	// request for that long; 0: never.
	SessionTimeout time.Duration
	// MaxSessions bounds the stateful sessions open at once: a session
	// that would pass it closes the oldest first. 0: no bound.
	MaxSessions int
	// WriteTimeout bounds each write to a client (an SSE event, a JSON
	// body); 0: none.
	WriteTimeout time.Duration
	// MaxUnsentBytes bounds the bytes of messages waiting to be written
	// to one stream while its client does not read: a message past it
	// (when others wait already) cuts the stream off. 0: no bound.
	MaxUnsentBytes int64
	// Versions are the protocol versions the server negotiates; nil: the
	// SDK's.
	Versions []string
	// NewSessionID returns the ID of a new stateful session; nil:
	// crypto/rand.Text. One that returns "" makes every POST's session
	// its own, closed when the POST ends.
	NewSessionID func() string
	// Host is the server above (see [Host]): it reads each POST's body,
	// checks its call and gives its tool's header checks. Not nil.
	Host Host
	// DisableLocalhostProtection turns off the DNS-rebinding check: a
	// request that reached a loopback address must name a loopback Host.
	DisableLocalhostProtection bool
	// CrossOriginProtection decides which browser requests from another
	// origin are refused (403), on every method: a GET, HEAD or OPTIONS is
	// checked as a POST would be, as MCP asks a server to validate Origin
	// on every request. Before it, on a server listening on loopback, an
	// Origin whose host is loopback too (the MCP Inspector's browser page
	// at http://localhost:6274) is let through. nil:
	// http.NewCrossOriginProtection(), which lets through a request with
	// no Origin (clients outside a browser send none), same-origin ones
	// (the Origin's host is the request's Host) and no other.
	CrossOriginProtection *http.CrossOriginProtection
	// EventStore keeps the events of each stateful session's SSE streams
	// so that a client whose stream broke off resumes it with a GET and
	// Last-Event-ID (see resume.go); nil: streams are not resumed, and a
	// Last-Event-ID is refused.
	EventStore mcp.EventStore
	Logger     *slog.Logger
}

// Handler serves MCP's streamable HTTP transport for one mcp.Server, with
// sessions, SSE and JSON responses of its own and the SDK's server
// running each session.
type Handler struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	order    []*session // stateful sessions, oldest first
	// bySession finds the connection of every session open, stateless
	// ones too (see Call).
	bySession map[*mcp.ServerSession]*conn
}

func (h *Handler) track(ss *mcp.ServerSession, c *conn) {
	h.mu.Lock()
	h.bySession[ss] = c
	h.mu.Unlock()
}

func (h *Handler) untrack(ss *mcp.ServerSession) {
	h.mu.Lock()
	delete(h.bySession, ss)
	h.mu.Unlock()
}

// Call returns the JSON-RPC ID of req, a request this handler's transport
// gave the SDK and not yet answered, and the network address (host:port)
// of the client that sent it; ok is false for any other request.
func (h *Handler) Call(req mcp.Request) (id jsonrpc.ID, client string, ok bool) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	ex := req.GetExtra()
	if ss == nil || ex == nil {
		return jsonrpc.ID{}, "", false
	}
	h.mu.Lock()
	c := h.bySession[ss]
	h.mu.Unlock()
	if c == nil {
		return jsonrpc.ID{}, "", false
	}
	c.mu.Lock()
	info, ok := c.extras[ex]
	c.mu.Unlock()
	return info.id, info.client, ok
}

// session is one stateful session: its connection, the SDK's session and
// the user it is bound to.
type session struct {
	id     string
	conn   *conn
	ss     *mcp.ServerSession
	userID string

	mu     sync.Mutex
	active int // HTTP requests being served
	timer  *time.Timer
}

// New returns a handler with opts; it panics when opts.Host is nil, a
// mistake no request could recover from.
func New(opts Options) *Handler {
	if opts.Host == nil {
		panic("streamable: Options.Host is nil")
	}
	if opts.Versions == nil {
		opts.Versions = mcp.SupportedProtocolVersions()
	}
	if opts.NewSessionID == nil {
		opts.NewSessionID = rand.Text
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CrossOriginProtection == nil {
		opts.CrossOriginProtection = http.NewCrossOriginProtection()
	}
	return &Handler{opts: opts, sessions: map[string]*session{}, bySession: map[*mcp.ServerSession]*conn{}}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	local := la != nil && isLoopback(la.String())
	if !h.opts.DisableLocalhostProtection && local && !isLoopback(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	if err := h.checkOrigin(r, local); err != nil {
		http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	version := r.Header.Get(protocolVersionHeader)
	if r.Method != http.MethodPost && !h.speaks(version) {
		// A POST is refused once its body is read, with its request's ID.
		refuseVersion(w, jsonrpc.ID{}, version, h.opts.Versions)
		return
	}
	switch {
	case r.Method == http.MethodPost:
		h.servePOST(w, r, version)
	case h.opts.Stateless:
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	case r.Method == http.MethodGet:
		h.serveGET(w, r, version)
	case r.Method == http.MethodDelete:
		sess := h.lookup(w, r, "DELETE")
		if sess == nil {
			return
		}
		_ = sess.ss.Close()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// checkOrigin returns why a request from a browser page of another origin
// is refused, nil when it is not (see Options.CrossOriginProtection);
// local reports whether the server listens on loopback.
func (h *Handler) checkOrigin(r *http.Request, local bool) error {
	origin := r.Header.Get("Origin")
	if local && origin != "" {
		if u, err := url.Parse(origin); err == nil && u.Host != "" && isLoopback(u.Host) {
			return nil
		}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if origin == "" && r.Header.Get("Sec-Fetch-Site") == "" {
			return nil // not from a browser: nothing to copy the request for
		}
		// CrossOriginProtection lets the methods it deems safe through.
		unsafe := *r
		unsafe.Method = http.MethodPost
		return h.opts.CrossOriginProtection.Check(&unsafe)
	}
	return h.opts.CrossOriginProtection.Check(r)
}

// speaks reports whether version, an Mcp-Protocol-Version header, is
// absent or one the server speaks.
func (h *Handler) speaks(version string) bool {
	return version == "" || slices.Contains(h.opts.Versions, version)
}

// refuseVersion answers a request whose Mcp-Protocol-Version is none the
// server speaks: 400, with a JSON-RPC error that names the versions it
// does (the SDK's handler lets any version from 2026-07-28 on, as
// strings compare, through).
func refuseVersion(w http.ResponseWriter, id jsonrpc.ID, version string, supported []string) {
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: supported, Requested: version})
	writeRPCError(w, http.StatusBadRequest, id, mcp.CodeUnsupportedProtocolVersion,
		fmt.Sprintf("Bad Request: Unsupported protocol version %q (supported versions: %s)", version, strings.Join(supported, ",")), data)
}

// lookup returns the session the request names, or writes the refusal
// (400 for none, 404 for one unknown, 403 for another user's) and returns
// nil.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, method string) *session {
	id := r.Header.Get(sessionIDHeader)
	if id == "" {
		http.Error(w, "Bad Request: "+method+" requires an Mcp-Session-Id header", http.StatusBadRequest)
		return nil
	}
	h.mu.Lock()
	sess := h.sessions[id]
	h.mu.Unlock()
	if sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return nil
	}
	if sess.userID != "" {
		if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != sess.userID {
			http.Error(w, "session user mismatch", http.StatusForbidden)
			return nil
		}
	}
	return sess
}

func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request, version string) {
	if _, sse := accepts(r.Header.Values("Accept")); !sse {
		http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
		return
	}
	sess := h.lookup(w, r, "GET")
	if sess == nil {
		return
	}
	if len(r.Header.Values(lastEventIDHeader)) > 0 || sess.conn.store != nil {
		h.serveGETResume(w, r, sess.conn)
		return
	}
	if version == "" {
		version = defaultVersion
	}
	// An open GET stream does not keep its session from idling out: only
	// POSTs count, as on the SDK's handler.
	s := newStream(w, modeSSE, version, 0)
	s.standalone = true
	h.bound(s)
	c := sess.conn
	c.mu.Lock()
	if c.standalone != nil {
		c.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	c.standalone = s
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.standalone == s {
			c.standalone = nil
		}
		c.mu.Unlock()
	}()
	// Headers and a comment now: proxies hold back headers until a body
	// starts, and the stream may stay quiet for long.
	s.mu.Lock()
	s.startLocked(http.StatusOK)
	_, _ = w.Write([]byte(": ok\n\n"))
	_ = s.flush()
	s.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-s.done:
	case <-c.done:
	}
	s.finish(0)
}

func (s *session) begin() {
	s.mu.Lock()
	s.active++
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
}

func (s *session) end(timeout time.Duration) {
	s.mu.Lock()
	s.active--
	if s.active == 0 && timeout > 0 {
		if s.timer == nil {
			s.timer = time.AfterFunc(timeout, func() { _ = s.ss.Close() })
		} else {
			s.timer.Reset(timeout)
		}
	}
	s.mu.Unlock()
}

// accepts reports whether Accept values name JSON and SSE.
func accepts(values []string) (json, sse bool) {
	for _, v := range values {
		for tok := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(tok, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				json = true
			case "text/event-stream", "text/*":
				sse = true
			case "*/*":
				json, sse = true, true
			}
		}
	}
	return json, sse
}

// isLoopback reports whether addr (host or host:port) is a loopback
// address or localhost.
func isLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// writeRPCError answers with one JSON-RPC error and status.
func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string, data []byte) {
	out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg, Data: data}})
	if err != nil {
		out = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// contentJSON reports whether the request's Content-Type is JSON.
func contentJSON(r *http.Request) bool {
	// The media type is what comes before the parameters (RFC 9110
	// 8.3.1). Without parameters it is compared as it is; with them,
	// mime.ParseMediaType checks them too (and allocates them), so that
	// malformed ones are refused 415, as the SDK's transport refuses them.
	ct := r.Header.Get("Content-Type")
	mt, _, params := strings.Cut(ct, ";")
	if params {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			return false
		}
	}
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}
