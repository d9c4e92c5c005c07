package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

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

// DefaultSessionTimeout is how long a stateful HTTP session may stay idle
// (no HTTP request from its client) before [Server.HTTPHandler] closes it,
// when the options give no SessionTimeout. An abandoned session otherwise
// keeps a goroutine and its state for the life of the process.
const DefaultSessionTimeout = 30 * time.Minute

// rpcHandler wraps the SDK's streamable HTTP handler so that a POST the
// SDK would refuse at the JSON-RPC level gets a JSON-RPC error body instead
// of text/plain or a code-0 error:
//
//   - a body that is not JSON: -32700 (parse error);
//   - a body that is not a JSON-RPC message or batch, a batch with two
//     requests of one ID, or a request the SDK refuses (e.g. missing id or
//     params, batch on a protocol without batches): -32600 (invalid request);
//   - a request for a method the server does not know: -32601;
//   - on a stateful server, a request other than initialize, ping and
//     server/discover without an Mcp-Session-Id header: -32600.
//
// The HTTP status stays 400. Transport-level refusals (forbidden Host or
// origin, unknown session, wrong Content-Type or Accept, body too large)
// are the SDK's, unchanged: the wrapper only speaks once the SDK has passed
// them, which it knows by the SDK starting to read the body.
type rpcHandler struct {
	sdk http.Handler
	// plain, on a stateless server whose options leave JSONResponse off,
	// is the SDK's handler answering with one JSON body: it serves the
	// tools/call requests that ask for nothing to be streamed back
	// (plainCall), whose only message is their response; sdk answers the
	// rest with an SSE stream. With no sessions, the two share no state.
	plain http.Handler
	// sessions is true for a stateful handler whose server mints session
	// IDs: requests other than initialize need one.
	sessions bool
	// maxBody is the most bytes a request body may have (the options'
	// MaxRequestBodyBytes; -1: no bound); bodies is the server's bound on
	// the bodies being read together.
	maxBody int64
	bodies  *bodyBudget
	// maxSessions bounds the sessions of server (Options.MaxSessions; -1:
	// no bound): an initialize past it gets 503.
	maxSessions int
	server      *mcp.Server
	logger      *slog.Logger
	// bodyTimeout bounds how long a request body may take to arrive
	// (Options.BodyReadTimeout; 0: no bound).
	bodyTimeout time.Duration
}

func (h *rpcHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.Body == nil {
		h.sdk.ServeHTTP(w, req)
		return
	}
	if ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); ct != "application/json" {
		h.sdk.ServeHTTP(w, req)
		return
	}
	// The body's hold on the bodies in flight: an outer GuardBodies's, or
	// the probe's own (no context to derive, no allocation).
	body := &probeBody{}
	hold := bodyHoldOf(req)
	if hold == nil {
		body.own.budget = h.bodies
		hold = &body.own
		defer hold.release()
	}
	// A body must arrive within the timeout: one that stalls would hold
	// its room in the bodies in flight for as long as its sender likes.
	var conn readDeadliner
	if h.bodyTimeout > 0 {
		if conn = readDeadlinerOf(w); conn != nil && conn.SetReadDeadline(time.Now().Add(h.bodyTimeout)) != nil {
			conn = nil
		}
	}
	data, whole, readErr := readBody(req, h.maxBody, hold)
	_ = req.Body.Close()
	if conn != nil {
		_ = conn.SetReadDeadline(time.Time{})
	}
	if errors.Is(readErr, os.ErrDeadlineExceeded) {
		hold.release()
		http.Error(w, fmt.Sprintf("the request body did not arrive within %v", h.bodyTimeout), http.StatusRequestTimeout)
		return
	}
	if errors.Is(readErr, errBodyBudget) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, readErr.Error(), http.StatusServiceUnavailable)
		return
	}
	if readErr == nil && !whole {
		// The SDK answers 413 once its own transport checks have passed.
		readErr = &http.MaxBytesError{Limit: h.maxBody}
		data = nil
	}
	body.data, body.err, body.hold = data, readErr, hold
	if b, ok := req.Body.(*bufferedBody); ok {
		body.src = b
	}
	rw := &rpcWriter{w: w, body: body, data: data}
	if readErr == nil {
		var opens bool
		rw.refusal, opens = h.check(req, data)
		if opens {
			h.makeRoom()
		}
		if rw.refusal != nil {
			// The SDK must not run anything: it gets an empty body, which it
			// refuses once its transport checks have passed.
			body.data = nil
		}
	}
	// A shallow copy with the body replaced: the handler does not change
	// the caller's request, and the headers are shared, not copied.
	r2 := new(http.Request)
	*r2 = *req
	r2.Body = body
	next := h.sdk
	if h.plain != nil && readErr == nil && rw.refusal == nil && plainCall(data) {
		next = h.plain
	}
	next.ServeHTTP(rw, r2)
	rw.finish()
}

// readDeadliner is a response writer that can bound the reading of its
// request, as net/http's own does.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// readDeadlinerOf finds the writer under w's wrappers that sets read
// deadlines, as http.ResponseController does, without allocating one; nil
// when there is none (a test recorder).
func readDeadlinerOf(w http.ResponseWriter) readDeadliner {
	d, _ := streamable.WriterAs[readDeadliner](w)
	return d
}

// plainCall reports whether body is one tools/call request that asks for
// no notification on its way: no progress token and no log level in it.
// Its answer is then a single message, which a JSON body carries at less
// cost than an SSE stream; clients accept either (the Accept header of a
// POST must name both). Bodies that mention either word anywhere, in the
// arguments too, keep the stream.
func plainCall(data []byte) bool {
	if !bytes.Contains(data, []byte(`"tools/call"`)) ||
		bytes.Contains(data, []byte("progressToken")) || bytes.Contains(data, []byte("logLevel")) {
		return false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	// A batch (an array) does not decode into msg.
	return segjson.Unmarshal(data, &msg) == nil && msg.Method == "tools/call" && len(msg.ID) > 0
}

// check returns the JSON-RPC error for a POST body the SDK would mishandle,
// or nil to let the SDK answer. It decodes the body only when it must: for
// a batch, or for a request without a session on a server that needs one.
// Everything else is the SDK's to decode; a body the SDK refuses is decoded
// again, then, to word the error (rpcWriter.finish).
//
// opens reports an initialize without a session on a server that mints
// them: the request would open a session.
func (h *rpcHandler) check(req *http.Request, data []byte) (refusal *jsonrpc.Response, opens bool) {
	batch := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("["))
	sessionless := h.sessions && req.Header.Get("Mcp-Session-Id") == "" && req.Header.Get("Mcp-Protocol-Version") < "2026-07-28"
	if !batch && !sessionless {
		return nil, false
	}
	msgs, batch, err := decodeBody(data)
	if err != nil {
		return err, false
	}
	if batch {
		// A set, not a scan of the IDs seen: a batch of n calls costs O(n).
		seen := make(map[jsonrpc.ID]struct{}, len(msgs))
		for _, m := range msgs {
			if !m.call {
				continue
			}
			if _, dup := seen[m.id]; dup {
				return rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("the batch has two requests with id %v; none was run", m.id.Raw())), false
			}
			seen[m.id] = struct{}{}
		}
	}
	if sessionless {
		var first *envelope
		for i := range msgs {
			m := &msgs[i]
			if m.method == "" {
				continue
			}
			switch m.method {
			case "initialize":
				return nil, true
			case "ping", "server/discover":
				continue
			}
			// A method MCP does not define is left to the SDK, which
			// refuses it as unknown (or serves a custom method).
			if m.call && first == nil && mcpMethod(m.method) {
				first = m
			}
		}
		if first != nil {
			return rpcError(first.id, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("%s needs a session: send initialize first, then the Mcp-Session-Id header it returns", first.method)), false
		}
	}
	return nil, false
}

// makeRoom closes the oldest sessions while the server holds as many as
// the handler's bound allows, so that a request opening one finds room. It
// counts the SDK's sessions, which it does only for a request that would
// open one. Evicting rather than refusing keeps a peer that opens sessions
// in a loop from locking every new client out until its sessions idle out;
// an evicted client gets 404 for its session and initializes again, as the
// transport says it must.
func (h *rpcHandler) makeRoom() {
	if h.maxSessions < 0 {
		return
	}
	var all []*mcp.ServerSession
	for ss := range h.server.Sessions() {
		all = append(all, ss)
	}
	// Sessions lists them in the order they opened.
	for i := 0; len(all)-i >= h.maxSessions; i++ {
		h.logger.Warn("hookflow: the server holds as many sessions as it may; closing the oldest to open one",
			"max_sessions", h.maxSessions, "session_id", all[i].ID())
		_ = all[i].Close()
	}
}

// envelope is what the handler needs of one JSON-RPC message: whether it
// is a request (method set) and a call (id set), its id and method.
type envelope struct {
	id     jsonrpc.ID
	method string
	call   bool
}

// decodeBody decodes a POST body as one JSON-RPC message or a batch, or
// returns the error to answer. It decodes each message's envelope only
// (jsonrpc, id, method), into small values: a batch of many tiny messages
// costs a small multiple of its size, not a decoder per message.
func decodeBody(data []byte) (msgs []envelope, batch bool, _ *jsonrpc.Response) {
	if !json.Valid(data) {
		return nil, false, rpcError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the body is not valid JSON")
	}
	var raws []json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("[")) {
		if err := segjson.Unmarshal(data, &raws); err != nil {
			return nil, true, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid batch: "+err.Error())
		}
		if len(raws) == 0 {
			return nil, true, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: empty batch")
		}
		batch = true
	} else {
		raws = []json.RawMessage{data}
	}
	msgs = make([]envelope, 0, len(raws))
	for _, raw := range raws {
		m, err := decodeEnvelope(raw)
		if err != nil {
			return nil, batch, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		}
		msgs = append(msgs, m)
	}
	return msgs, batch, nil
}

// decodeEnvelope decodes one message's envelope, refusing what is not a
// JSON-RPC 2.0 message: not an object, another version, a method that is
// not a string, an id that is neither a string nor an integer.
func decodeEnvelope(raw []byte) (envelope, error) {
	var msg struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if err := segjson.Unmarshal(raw, &msg); err != nil {
		return envelope{}, err
	}
	if msg.Version != "2.0" {
		return envelope{}, fmt.Errorf("jsonrpc is %q, not \"2.0\"", msg.Version)
	}
	var m envelope
	if len(msg.ID) > 0 && string(msg.ID) != "null" {
		var v any
		if err := segjson.Unmarshal(msg.ID, &v); err != nil {
			return envelope{}, err
		}
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			return envelope{}, err
		}
		m.id = id
	}
	if msg.Method != nil {
		if *msg.Method == "" {
			return envelope{}, errors.New("empty method")
		}
		m.method, m.call = *msg.Method, m.id.IsValid()
	}
	return m, nil
}

// refusedCode is the JSON-RPC code of the SDK's 400 refusal of a POST body
// it has read: -32601 when the body is one call of a method MCP does not
// define (the SDK accepts any call of a custom method it was given), else
// -32600.
func refusedCode(data []byte) int64 {
	msgs, batch, err := decodeBody(data)
	if err != nil || batch || len(msgs) != 1 {
		return jsonrpc.CodeInvalidRequest
	}
	if m := msgs[0]; m.call && !mcpMethod(m.method) {
		return jsonrpc.CodeMethodNotFound
	}
	return jsonrpc.CodeInvalidRequest
}

// mcpMethod reports whether method is one a client may send an MCP server.
func mcpMethod(method string) bool {
	switch method {
	case "initialize", "ping", "server/discover", "completion/complete",
		"prompts/list", "prompts/get", "tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read",
		"resources/subscribe", "resources/unsubscribe", "logging/setLevel",
		"subscriptions/listen",
		"notifications/cancelled", "notifications/initialized",
		"notifications/roots/list_changed", "notifications/progress":
		return true
	}
	return false
}

func rpcError(id jsonrpc.ID, code int64, msg string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}}
}

// probeBody is the request body the SDK reads: data, or err. reached
// records that the SDK read it, so had passed its transport checks. Once
// the SDK has read it to its end, the body no longer counts against the
// bodies in flight (hold), and the buffer ReadBody left in the request
// (src) lets go of it.
type probeBody struct {
	data    []byte
	err     error
	reached bool
	hold    *bodyHold
	src     *bufferedBody
	own     bodyHold
}

func (b *probeBody) Read(p []byte) (int, error) {
	b.reached = true
	if b.err != nil {
		return 0, b.err
	}
	if len(b.data) == 0 {
		b.data = nil
		if b.src != nil {
			b.src.data, b.src.off = nil, 0
			b.src = nil
		}
		b.hold.release()
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (b *probeBody) Close() error { return nil }

// rpcWriter passes the SDK's response through, except after the SDK read
// the body: then a refusal decided by rpcHandler.check replaces whatever
// the SDK answers, and a plain-text 400 of the SDK becomes a JSON-RPC error
// with the SDK's text.
type rpcWriter struct {
	w       http.ResponseWriter
	body    *probeBody
	refusal *jsonrpc.Response
	// data is the request body as the client sent it, kept for finish
	// until the SDK's answer is known not to be captured.
	data []byte

	wrote    bool
	captured bool
	status   int
	text     bytes.Buffer
}

func (rw *rpcWriter) Header() http.Header { return rw.w.Header() }

func (rw *rpcWriter) WriteHeader(code int) {
	if rw.wrote {
		return
	}
	rw.wrote = true
	if rw.body.reached && (rw.refusal != nil ||
		code == http.StatusBadRequest && strings.HasPrefix(rw.w.Header().Get("Content-Type"), "text/plain")) {
		rw.captured, rw.status = true, code
		return
	}
	rw.data = nil
	rw.w.WriteHeader(code)
}

func (rw *rpcWriter) Write(p []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.captured {
		return rw.text.Write(p)
	}
	return rw.w.Write(p)
}

// Flush flushes a response passed through; a captured one is written whole
// by finish.
func (rw *rpcWriter) Flush() {
	if rw.captured {
		return
	}
	_ = http.NewResponseController(rw.w).Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (rw *rpcWriter) Unwrap() http.ResponseWriter { return rw.w }

// finish writes the JSON-RPC error for a captured response.
func (rw *rpcWriter) finish() {
	if !rw.captured {
		return
	}
	data := rw.data
	resp := rw.refusal
	if resp == nil {
		// A body that is not JSON-RPC: the error check would have given.
		_, _, resp = decodeBody(data)
	}
	if resp == nil {
		resp = rpcError(jsonrpc.ID{}, refusedCode(data), strings.TrimSpace(rw.text.String()))
		if msgs, batch, _ := decodeBody(data); !batch && len(msgs) == 1 && msgs[0].method != "" {
			resp.ID = msgs[0].id
		}
	}
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		out = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	h := rw.w.Header()
	h.Del("Content-Length")
	h.Del("Mcp-Session-Id")
	h.Set("Content-Type", "application/json")
	rw.w.WriteHeader(http.StatusBadRequest)
	_, _ = rw.w.Write(out)
}

// newHTTPHandler returns the SDK's streamable handler for s with opts,
// wrapped by rpcHandler, SessionTimeout defaulted, and with nil opts
// PropagateRequestCancellation on.
func (s *Server) newHTTPHandler(opts *mcp.StreamableHTTPOptions) http.Handler {
	var o mcp.StreamableHTTPOptions
	if opts != nil {
		o = *opts
	} else {
		// With no options, a stateless request of protocol 2026-07-28
		// (where the POST is the request's whole life) is cancelled when
		// its client goes away; a stateful call runs on (see HTTPHandler).
		o.PropagateRequestCancellation = true
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	sessions := !o.Stateless
	if sdk := s.opts.SDK; sessions && sdk != nil && sdk.GetSessionID != nil {
		// A server whose GetSessionID returns "" has no sessions.
		sessions = sdk.GetSessionID() != ""
	}
	getServer := func(*http.Request) *mcp.Server { return s.sdk }
	maxBody := o.MaxRequestBodyBytes
	switch {
	case maxBody == 0:
		maxBody = mcp.DefaultMaxRequestBodyBytes
	case maxBody < 0:
		maxBody = -1
	}
	rh := &rpcHandler{sessions: sessions, maxBody: maxBody, bodies: s.bodies,
		maxSessions: s.opts.MaxSessions, server: s.sdk, logger: s.logger, bodyTimeout: s.opts.BodyReadTimeout}
	switch {
	case rh.bodyTimeout == 0:
		rh.bodyTimeout = DefaultBodyReadTimeout
	case rh.bodyTimeout < 0:
		rh.bodyTimeout = 0
	}
	switch {
	case rh.maxSessions == 0:
		rh.maxSessions = DefaultMaxSessions
	case rh.maxSessions < 0:
		rh.maxSessions = -1
	}
	var h http.Handler = rh
	if s.opts.HTTPTransport != HTTPTransportSDK {
		h = s.newHookflowHandler(&o, maxBody, rh.maxSessions, rh.bodyTimeout)
	} else {
		rh.sdk = mcp.NewStreamableHTTPHandler(getServer, &o)
	}
	if rh.sdk != nil && o.Stateless && !o.JSONResponse {
		plain := o
		plain.JSONResponse = true
		rh.plain = mcp.NewStreamableHTTPHandler(getServer, &plain)
	}
	if a := s.opts.Admin; a != nil && a.ExplainPath != "" {
		h = &adminHandler{srv: s, opts: *a, next: h}
	}
	return h
}
