package framework

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

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
	data, _, readErr := ReadBody(req, -1)
	_ = req.Body.Close()
	body := &probeBody{data: data, err: readErr}
	rw := &rpcWriter{w: w, body: body}
	if readErr == nil {
		rw.refusal = h.check(req, data)
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
	rw.finish(data)
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
func (h *rpcHandler) check(req *http.Request, data []byte) *jsonrpc.Response {
	batch := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("["))
	sessionless := h.sessions && req.Header.Get("Mcp-Session-Id") == "" && req.Header.Get("Mcp-Protocol-Version") < "2026-07-28"
	if !batch && !sessionless {
		return nil
	}
	msgs, batch, err := decodeBody(data)
	if err != nil {
		return err
	}
	if batch {
		seen := make([]jsonrpc.ID, 0, len(msgs))
		for _, m := range msgs {
			r, ok := m.(*jsonrpc.Request)
			if !ok || !r.IsCall() {
				continue
			}
			for _, id := range seen {
				if id == r.ID {
					return rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
						fmt.Sprintf("the batch has two requests with id %v; none was run", r.ID.Raw()))
				}
			}
			seen = append(seen, r.ID)
		}
	}
	if sessionless {
		var first *jsonrpc.Request
		for _, m := range msgs {
			r, ok := m.(*jsonrpc.Request)
			if !ok {
				continue
			}
			switch r.Method {
			case "initialize":
				return nil
			case "ping", "server/discover":
				continue
			}
			// A method MCP does not define is left to the SDK, which
			// refuses it as unknown (or serves a custom method).
			if r.IsCall() && first == nil && mcpMethod(r.Method) {
				first = r
			}
		}
		if first != nil {
			return rpcError(first.ID, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("%s needs a session: send initialize first, then the Mcp-Session-Id header it returns", first.Method))
		}
	}
	return nil
}

// decodeBody decodes a POST body as one JSON-RPC message or a batch, or
// returns the error to answer.
func decodeBody(data []byte) (msgs []jsonrpc.Message, batch bool, _ *jsonrpc.Response) {
	if !json.Valid(data) {
		return nil, false, rpcError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the body is not valid JSON")
	}
	var raws []json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("[")) {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, true, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid batch: "+err.Error())
		}
		if len(raws) == 0 {
			return nil, true, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: empty batch")
		}
		batch = true
	} else {
		raws = []json.RawMessage{data}
	}
	for _, raw := range raws {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, batch, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		}
		msgs = append(msgs, m)
	}
	return msgs, batch, nil
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
	if r, ok := msgs[0].(*jsonrpc.Request); ok && r.IsCall() && !mcpMethod(r.Method) {
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
// records that the SDK read it, so had passed its transport checks.
type probeBody struct {
	data    []byte
	err     error
	reached bool
}

func (b *probeBody) Read(p []byte) (int, error) {
	b.reached = true
	if b.err != nil {
		return 0, b.err
	}
	if len(b.data) == 0 {
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

// finish writes the JSON-RPC error for a captured response. data is the
// request body as the client sent it.
func (rw *rpcWriter) finish(data []byte) {
	if !rw.captured {
		return
	}
	resp := rw.refusal
	if resp == nil {
		// A body that is not JSON-RPC: the error check would have given.
		_, _, resp = decodeBody(data)
	}
	if resp == nil {
		resp = rpcError(jsonrpc.ID{}, refusedCode(data), strings.TrimSpace(rw.text.String()))
		if msgs, batch, _ := decodeBody(data); !batch && len(msgs) == 1 {
			if r, ok := msgs[0].(*jsonrpc.Request); ok {
				resp.ID = r.ID
			}
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
		// With no options, a request of protocol 2026-07-28 (where the
		// POST is the request's whole life) is cancelled when its client
		// goes away. Older protocols keep the SDK's behaviour: the call
		// runs on; bound it with Options.ToolTimeout or Tool.Timeout.
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
	rh := &rpcHandler{sdk: mcp.NewStreamableHTTPHandler(getServer, &o), sessions: sessions}
	if o.Stateless && !o.JSONResponse {
		plain := o
		plain.JSONResponse = true
		rh.plain = mcp.NewStreamableHTTPHandler(getServer, &plain)
	}
	var h http.Handler = rh
	if a := s.opts.Admin; a != nil && a.ExplainPath != "" {
		h = &adminHandler{srv: s, opts: *a, next: h}
	}
	return h
}

// ReadBody returns the body of r, read into memory once however many of
// hookflow's HTTP handlers (the server's, a plugin's middleware) ask for
// it: the first call reads it and leaves in r.Body a reader of the same
// bytes, which a later call returns without reading or copying again.
// With max ≥ 0, a body longer than max bytes is not kept: ReadBody returns
// its first max+1 bytes and false, and r.Body reads the whole body again.
// Callers must not modify the bytes.
func ReadBody(r *http.Request, max int64) (data []byte, whole bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, nil
	}
	if b, ok := r.Body.(*bufferedBody); ok && b.off == 0 {
		return b.data, true, nil
	}
	src := r.Body
	if max >= 0 {
		src = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(r.Body, max+1), r.Body}
	}
	if n := r.ContentLength; n > 0 && (max < 0 || n <= max) {
		data = make([]byte, 0, n+1) // +1: the read that sees EOF
	}
	data, err = readAll(src, data)
	if err != nil || max >= 0 && int64(len(data)) > max {
		r.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(data), r.Body), Closer: r.Body}
		return data, false, err
	}
	r.Body = &bufferedBody{data: data, closer: r.Body}
	return data, true, nil
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	if buf == nil {
		buf = make([]byte, 0, 512)
	}
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// bufferedBody is a request body read into memory by ReadBody.
type bufferedBody struct {
	data   []byte
	off    int
	closer io.Closer
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *bufferedBody) Close() error { return b.closer.Close() }

// replayBody reads again a body ReadBody did not keep.
type replayBody struct {
	io.Reader
	io.Closer
}
