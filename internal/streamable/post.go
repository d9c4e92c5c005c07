package streamable

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// post is what servePOST learns of a POST's messages.
type post struct {
	one         [1]jsonrpc.Message // room for msgs of one message
	oneCall     [1]*jsonrpc.Request
	msgs        []jsonrpc.Message
	batch       bool
	calls       []*jsonrpc.Request
	initialize  bool
	initialized bool
	initVersion string
	listen      bool
	// sessionless is the first call that needs a session (a method MCP
	// defines other than initialize, ping and server/discover), nil when
	// none does.
	sessionless *jsonrpc.Request
}

func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request, version string) {
	if !contentJSON(r) {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	if jsonOK, sseOK := accepts(r.Header.Values("Accept")); !jsonOK || !sseOK {
		http.Error(w, "Accept must contain both 'application/json' and 'text/event-stream'", http.StatusBadRequest)
		return
	}
	if len(r.Header.Values(lastEventIDHeader)) > 0 {
		http.Error(w, "can't send Last-Event-ID for POST request", http.StatusBadRequest)
		return
	}
	// An unknown session is refused before its body is read.
	var sess *session
	if !h.opts.Stateless && r.Header.Get(sessionIDHeader) != "" {
		if sess = h.lookup(w, r, "POST"); sess == nil {
			return
		}
		sess.begin()
		defer sess.end(h.opts.SessionTimeout)
	}
	var p post
	if !h.readPOST(w, r, &p) {
		return
	}
	msgs, batch := p.msgs, p.batch
	if !h.speaks(version) {
		var id jsonrpc.ID
		if req, ok := msgs[0].(*jsonrpc.Request); ok && !batch {
			id = req.ID
		}
		refuseVersion(w, id, version, h.opts.Versions)
		return
	}
	v := version
	if v == "" {
		v = defaultVersion
	}
	if batch && v >= oldestBatchless {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("JSON-RPC batching is not supported in %s and later (request version: %s)", oldestBatchless, v), nil)
		return
	}
	if !batch && h.checkCall(w, r, msgs) {
		return
	}
	p.calls = p.oneCall[:0]
	if !h.classify(w, r, &p, version) {
		return
	}
	if !batch && len(msgs) == 1 && !h.headersMatch(w, r, msgs[0]) {
		return
	}

	c, sessionHeader, after := h.connFor(w, r, sess, &p, version)
	if c == nil {
		return
	}
	if after != nil {
		defer after()
	}
	h.serveCalls(w, r, c, &p, v, sessionHeader)
}

// readPOST reads r's body through the host and decodes its messages
// into p (msgs and batch); it writes the refusal and returns false when
// the host refuses the body, or the body is empty or no JSON-RPC.
func (h *Handler) readPOST(w http.ResponseWriter, r *http.Request, p *post) bool {
	data, hold, ok := h.opts.Host.ReadBody(w, r)
	if !ok {
		return false
	}
	release := func() {
		if hold != nil {
			hold.Release()
		}
	}
	// The messages point into data, which stays in memory as long as they
	// do; the bound on bodies in flight is on reading them.
	defer release()
	if len(data) == 0 {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: POST requires a non-empty body", nil)
		return false
	}
	msgs, batch, err := DecodeBody(data, p.one[:0])
	release()
	if err != nil {
		if !json.Valid(data) {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the body is not valid JSON", nil)
		} else {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error(), nil)
		}
		return false
	}
	p.msgs, p.batch = msgs, batch
	return true
}

// headersMatch checks the Mcp-Method, Mcp-Name and Mcp-Param-* headers
// of a POST of one message, msg; it writes the refusal and returns false
// when they do not match it.
func (h *Handler) headersMatch(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message) bool {
	err := h.checkHeaders(r.Header, msg)
	if err == nil {
		return true
	}
	var id jsonrpc.ID
	if req, ok := msg.(*jsonrpc.Request); ok {
		id = req.ID
	}
	writeRPCError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch, err.Error(), nil)
	return false
}

// serveCalls hands p's messages to c, and answers 202 when none is a
// call; else it answers the calls, on protocol version v, with one
// stream: SSE, one JSON body, or the first when needed and the second
// when not; sessionHeader is the Mcp-Session-Id to send back (on an
// initialize). It returns when the stream has ended: all calls answered,
// the session closed, or the client gone.
func (h *Handler) serveCalls(w http.ResponseWriter, r *http.Request, c *conn, p *post, v, sessionHeader string) {
	for _, req := range p.calls {
		// A handler may end its call's SSE stream early, asking the client
		// to come back later (not on 2026-07-28, which dropped resuming).
		id := req.ID
		req.Extra.(*mcp.RequestExtra).CloseSSEStream = func(args mcp.CloseSSEStreamArgs) {
			if v >= newProtocol {
				return
			}
			if s := c.streamOf(id); s != nil {
				s.stop(args.RetryAfter)
			}
		}
	}
	if len(p.calls) == 0 {
		if !c.publish(p.msgs) {
			http.Error(w, "session is closing", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	m := modeSSE
	switch {
	case p.listen:
	case h.opts.JSONResponse:
		m = modeJSON
	case !p.batch && len(p.calls) == 1 && p.calls[0].Method == "tools/call":
		// Only tools/call: clients and the conformance suite expect the
		// SDK's SSE stream for the rest.
		m = modeLazy
	}
	sv := v
	if p.initialize && p.initVersion != "" {
		sv = p.initVersion
	}
	s := newStream(w, m, sv, len(p.calls))
	s.batch, s.listen, s.header = p.batch, p.listen, sessionHeader
	h.bound(s)
	if !p.batch {
		_, s.known = methodKind(p.calls[0].Method)
	}
	if c.resumable(m, v) && !h.openRecord(w, r, c, s) {
		return
	}
	if dup, ok := c.register(s, p.calls, r.RemoteAddr); !ok {
		writeRPCError(w, http.StatusBadRequest, dup, jsonrpc.CodeInvalidRequest, fmt.Sprintf("duplicate in-flight request ID %v", dup.Raw()), nil)
		return
	}
	if s.rec != nil {
		// The calls outlive this response: their answers are stored for
		// the client to resume the stream with a GET.
		h.prime(s)
		defer s.release(w)
	} else {
		defer c.forget(s, p.calls)
	}
	if !c.publish(p.msgs) {
		s.finish(0)
		return
	}
	select {
	case <-s.done:
	case <-c.done:
	case <-r.Context().Done():
		if c.stateless {
			// The POST was the call's whole life: nobody is left to
			// read its answer.
			c.fail()
		}
	}
	s.finish(0)
}

// classify walks p's messages: it refuses a batch with two calls of one
// ID, a call of an MCP notification or a notification of an MCP call
// method, an MCP method without the params it requires, and a 2026-07-28 request whose _meta and headers disagree;
// records the calls and what opens or needs a session; and gives each
// request its RequestExtra. It writes the refusal and returns false.
func (h *Handler) classify(w http.ResponseWriter, r *http.Request, p *post, version string) bool {
	var seen map[jsonrpc.ID]bool
	if p.batch {
		seen = make(map[jsonrpc.ID]bool, len(p.msgs))
	}
	tokenInfo := auth.TokenInfoFromContext(r.Context())
	for _, m := range p.msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if p.batch && req.IsCall() {
			if seen[req.ID] {
				writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("the batch has two requests with id %v; none was run", req.ID.Raw()), nil)
				return false
			}
			seen[req.ID] = true
		}
		if kind, known := methodKind(req.Method); known && (kind == notification) == req.IsCall() {
			what := "a call, with an id"
			if kind == notification {
				what = "a notification, without an id"
			}
			writeRPCError(w, http.StatusBadRequest, req.ID, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("invalid request: %s must be %s", req.Method, what), nil)
			return false
		}
		if len(req.Params) == 0 && paramsRequired(req.Method) {
			// As the SDK's transport refuses it, before the session runs.
			writeRPCError(w, http.StatusBadRequest, req.ID, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("invalid request: %s requires params", req.Method), nil)
			return false
		}
		switch req.Method {
		case "initialize":
			p.initialize = true
			var params struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if _, err := segjson.Parse(req.Params, &params, parseFlags); err == nil {
				p.initVersion = params.ProtocolVersion
			}
		case "notifications/initialized":
			p.initialized = true
		case "subscriptions/listen":
			p.listen = true
		case "ping", "server/discover":
		default:
			if _, known := methodKind(req.Method); known && req.IsCall() && p.sessionless == nil {
				p.sessionless = req
			}
		}
		if !h.checkMeta(w, req, version) {
			return false
		}
		extra := &mcp.RequestExtra{TokenInfo: tokenInfo, Header: r.Header}
		req.Extra = extra
		if req.IsCall() {
			p.calls = append(p.calls, req)
		}
	}
	return true
}

// connFor returns the connection that serves the POST, the session ID to
// send back (on an initialize) and what to do when the POST ends (close a
// session opened for it alone), or writes the refusal and returns nil.
func (h *Handler) connFor(w http.ResponseWriter, r *http.Request, sess *session, p *post, version string) (*conn, string, func()) {
	if sess != nil {
		return sess.conn, "", nil
	}
	srv := h.opts.Server
	if h.opts.Stateless {
		c := newConn("", true, h.opts.Versions, nil)
		ss, err := srv.Connect(r.Context(), transport{c}, &mcp.ServerSessionOptions{State: ephemeralState(p, version)})
		if err != nil {
			h.opts.Logger.Error("hookflow: connecting a stateless session", "error", err)
			http.Error(w, "failed connection", http.StatusInternalServerError)
			return nil, "", nil
		}
		h.track(ss, c)
		return c, "", func() {
			h.untrack(ss)
			_ = ss.Close()
		}
	}
	if !p.initialize && p.sessionless != nil && version < newProtocol {
		writeRPCError(w, http.StatusBadRequest, p.sessionless.ID, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("%s needs a session: send initialize first, then the Mcp-Session-Id header it returns", p.sessionless.Method), nil)
		return nil, "", nil
	}
	id := ""
	if p.initialize {
		id = h.opts.NewSessionID()
	}
	if id == "" {
		// No session to address: this POST's alone.
		c := newConn("", false, h.opts.Versions, nil)
		var opts *mcp.ServerSessionOptions
		if !p.initialize {
			opts = &mcp.ServerSessionOptions{State: ephemeralState(p, version)}
		}
		ss, err := srv.Connect(r.Context(), transport{c}, opts)
		if err != nil {
			http.Error(w, "failed connection", http.StatusInternalServerError)
			return nil, "", nil
		}
		h.track(ss, c)
		return c, "", func() {
			h.untrack(ss)
			_ = ss.Close()
		}
	}
	h.makeRoom()
	sess = &session{id: id}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		sess.userID = ti.UserID
	}
	sess.conn = newConn(id, false, h.opts.Versions, func() { h.remove(sess) })
	if store := h.opts.EventStore; store != nil && !h.keepEvents(w, r, sess.conn, store) {
		return nil, "", nil
	}
	ss, err := srv.Connect(r.Context(), transport{sess.conn}, nil)
	if err != nil {
		h.opts.Logger.Error("hookflow: connecting a session", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return nil, "", nil
	}
	sess.ss = ss
	h.mu.Lock()
	h.sessions[id] = sess
	h.order = append(h.order, sess)
	h.bySession[ss] = sess.conn
	h.mu.Unlock()
	sess.begin()
	return sess.conn, id, func() {
		sess.end(h.opts.SessionTimeout)
		// A session whose initialize failed is of no use.
		if ss.InitializeParams() == nil {
			_ = ss.Close()
		}
	}
}

// ephemeralState is the state of a session opened for one POST that does
// not initialize it: as if initialized with the request's version, on the
// protocols that have sessions.
func ephemeralState(p *post, version string) *mcp.ServerSessionState {
	state := new(mcp.ServerSessionState)
	if version >= newProtocol {
		return state
	}
	if version == "" {
		version = defaultVersion
	}
	if !p.initialize {
		state.InitializeParams = &mcp.InitializeParams{ProtocolVersion: version}
	}
	if !p.initialized {
		state.InitializedParams = new(mcp.InitializedParams)
	}
	state.LogLevel = "info"
	return state
}

// makeRoom closes the oldest sessions while a new one would pass
// MaxSessions.
func (h *Handler) makeRoom() {
	if h.opts.MaxSessions <= 0 {
		return
	}
	var evict []*session
	h.mu.Lock()
	for i := 0; len(h.order)-i >= h.opts.MaxSessions; i++ {
		evict = append(evict, h.order[i])
	}
	h.mu.Unlock()
	for _, s := range evict {
		h.opts.Logger.Warn("hookflow: the server holds as many sessions as it may; closing the oldest to open one",
			"max_sessions", h.opts.MaxSessions, "session_id", s.id)
		_ = s.ss.Close()
		h.remove(s) // Close may return before the SDK closes the conn
	}
}

// remove forgets a closed session.
func (h *Handler) remove(s *session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	if s.ss != nil {
		delete(h.bySession, s.ss)
	}
	if i := slices.Index(h.order, s); i >= 0 {
		h.order = slices.Delete(h.order, i, i+1)
	}
	h.mu.Unlock()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
}

// Close closes every session.
func (h *Handler) Close() {
	h.mu.Lock()
	all := slices.Clone(h.order)
	h.mu.Unlock()
	for _, s := range all {
		_ = s.ss.Close()
	}
}

type kind uint8

const (
	call kind = iota
	notification
)

// methodKind returns whether method is a call or a notification, for the
// methods a client may send an MCP server; known is false for the others.
func methodKind(method string) (k kind, known bool) {
	switch method {
	case "initialize", "ping", "server/discover", "completion/complete",
		"prompts/list", "prompts/get", "tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read",
		"resources/subscribe", "resources/unsubscribe", "logging/setLevel",
		"subscriptions/listen":
		return call, true
	case "notifications/cancelled", "notifications/initialized",
		"notifications/roots/list_changed", "notifications/progress":
		return notification, true
	}
	return 0, false
}

// paramsRequired reports whether method, one methodKind knows, must have
// params, as the SDK's server requires them.
func paramsRequired(method string) bool {
	switch method {
	case "initialize", "completion/complete", "prompts/get", "tools/call",
		"resources/read", "resources/subscribe", "resources/unsubscribe",
		"logging/setLevel", "subscriptions/listen", "notifications/progress":
		return true
	}
	return false
}
