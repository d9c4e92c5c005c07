package streamable

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mode is how a stream's HTTP response carries its messages.
type mode uint8

const (
	// modeSSE: an SSE stream, one event per message.
	modeSSE mode = iota
	// modeJSON: one JSON body holding the answers (an array for a batch);
	// other messages go to the GET stream.
	modeJSON
	// modeLazy: one JSON body when the call's answer is the first message
	// (nothing streamed before it), else an SSE stream from the first
	// message on. A POST's response may be either; JSON costs less.
	modeLazy
)

// stream is the HTTP response that carries a POST's answers (and what
// their handlers send), or the GET stream.
type stream struct {
	mu         sync.Mutex
	w          http.ResponseWriter
	ctl        control // found on the first flush or deadline
	mode       mode
	standalone bool // the GET stream: never ends by answers
	listen     bool // a subscriptions/listen call's stream
	batch      bool
	// known: the stream's one call is of a method MCP defines (see
	// errorStatus).
	known   bool
	version string
	// header is set on the response before it starts (Mcp-Session-Id of
	// an initialize); empty: none.
	header string
	// writeTimeout bounds each write to the client (0: none): a client
	// that stops reading fails its stream, not the server's goroutines.
	writeTimeout time.Duration
	// maxUnsent bounds owed (0: no bound): see deliver.
	maxUnsent int64
	// owed is the bytes of the messages handed to deliver and not yet
	// written to the client: waiting for mu while a write holds it.
	owed atomic.Int64
	// cut: the stream was cut off; every write from now on fails at once.
	cut atomic.Bool
	// cutMu guards cutDL, the write deadline of the response that
	// carries the stream now (nil: none found yet), which cutOff sets to
	// the past without mu, held by the write it interrupts.
	cutMu sync.Mutex
	cutDL interface{ SetWriteDeadline(time.Time) error }
	// logger tells of a stream cut off.
	logger *slog.Logger
	// rec is the stream's record in the event store, nil when it is not
	// resumable (see resume.go); then w is the response of the HTTP
	// request that carries the stream now, nil while none does.
	rec *record

	pending int  // unanswered calls
	started bool // the status line is written
	ended   bool
	done    chan struct{}
	answers [][]byte // modeJSON: the answers so far
}

func newStream(w http.ResponseWriter, m mode, version string, pending int) *stream {
	return &stream{w: w, mode: m, version: version, pending: pending, done: make(chan struct{})}
}

// bound gives s the handler's bounds on writing to its client: the write
// timeout and the bytes it may owe.
func (h *Handler) bound(s *stream) {
	s.writeTimeout, s.maxUnsent, s.logger = h.opts.WriteTimeout, h.opts.MaxUnsentBytes, h.opts.Logger
}

var (
	errEnded  = errors.New("the stream has ended")
	errUnsent = errors.New("the client is not reading its stream: too many bytes owed to it")
)

// deliver writes data, a message of the stream; resp is non-nil when the
// message answers one of the stream's calls.
//
// Messages are written one at a time, in the order they take s.mu: while
// a client does not read, its write blocks (up to the write timeout) and
// the messages behind it wait, each holding its bytes. With maxUnsent
// set, a message that would bring the bytes waiting past it, when others
// are waiting already, is refused (errUnsent) and the stream is cut off:
// the blocked write fails at once, the stream ends, and what waited is
// dropped. One message of any size is always let through.
func (s *stream) deliver(data []byte, resp *jsonrpc.Response) error {
	if s.maxUnsent <= 0 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.deliverLocked(data, resp)
	}
	n := int64(len(data))
	if owed := s.owed.Add(n); owed > n && owed > s.maxUnsent {
		s.owed.Add(-n)
		s.cutOff()
		return errUnsent
	}
	defer s.owed.Add(-n)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deliverLocked(data, resp)
}

// cutOff fails the write that holds s.mu now, if any, by moving its
// deadline to the past, which ends the stream.
func (s *stream) cutOff() {
	if !s.cut.Swap(true) && s.logger != nil {
		s.logger.Warn("hookflow: a client is not reading its stream; cutting it off",
			"owed_bytes", s.owed.Load(), "max_unsent_bytes", s.maxUnsent)
	}
	s.cutMu.Lock()
	defer s.cutMu.Unlock()
	if s.cutDL != nil {
		_ = s.cutDL.SetWriteDeadline(time.Now())
	}
}

// setCutDeadliner records d as the write deadline cutOff moves.
func (s *stream) setCutDeadliner(d interface{ SetWriteDeadline(time.Time) error }) {
	s.cutMu.Lock()
	s.cutDL = d
	s.cutMu.Unlock()
}

// deliverLocked is deliver with s.mu held.
func (s *stream) deliverLocked(data []byte, resp *jsonrpc.Response) error {
	if s.keeping() {
		return s.keepLocked(data, resp)
	}
	if s.ended {
		return errEnded
	}
	if resp != nil {
		s.pending--
	}
	last := resp != nil && s.pending <= 0 && !s.standalone
	if resp != nil && !s.started && !s.batch {
		// Some errors have an HTTP status of their own, and are the
		// response's whole body.
		if status := errorStatus(resp, s.version, s.known); status != 0 {
			s.w.Header().Set("Content-Type", "application/json")
			return s.writeWhole(status, data)
		}
	}
	switch {
	case s.mode == modeJSON:
		s.answers = append(s.answers, data)
		if !last {
			return nil
		}
		if len(s.answers) == 1 && !s.batch {
			return s.writeWhole(http.StatusOK, data)
		}
		return s.writeWhole(http.StatusOK, joinArray(s.answers))
	case s.mode == modeLazy && last && !s.started:
		return s.writeWhole(http.StatusOK, data)
	}
	s.mode = modeSSE
	id, err := s.rec.append(data)
	if err != nil {
		// The client gets the message, only not again.
		id = ""
	}
	err = s.event("message", data, "", id)
	if last {
		s.end()
	}
	return err
}

// writeWhole writes the response as one JSON body and ends the stream.
func (s *stream) writeWhole(status int, body []byte) error {
	// net/http sets Content-Length for a body written whole before the
	// handler returns.
	s.w.Header().Set("Content-Type", "application/json")
	s.startLocked(status)
	s.deadline()
	_, err := s.w.Write(body)
	s.end()
	return err
}

// startLocked writes the status line and headers, once.
func (s *stream) startLocked(status int) {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	if s.header != "" {
		h.Set(sessionIDHeader, s.header)
	}
	if status == http.StatusOK && h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache, no-transform")
		h.Set("Connection", "keep-alive")
	}
	s.w.WriteHeader(status)
}

// event writes one SSE event and flushes it; id is its ID, "" for none.
func (s *stream) event(name string, data []byte, retry, id string) error {
	s.startLocked(http.StatusOK)
	buf := make([]byte, 0, len(name)+len(data)+len(retry)+len(id)+40)
	buf = append(buf, "event: "...)
	buf = append(buf, name...)
	buf = append(buf, '\n')
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	if retry != "" {
		buf = append(buf, "retry: "...)
		buf = append(buf, retry...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	s.deadline()
	if _, err := s.w.Write(buf); err != nil {
		s.end()
		return err
	}
	if err := s.flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.end()
		return err
	}
	return nil
}

// deadline bounds the next write, when the stream has a write timeout.
func (s *stream) deadline() {
	if s.writeTimeout > 0 {
		if wd := s.controls().deadliner; wd != nil {
			at := time.Now()
			if !s.cut.Load() {
				at = at.Add(s.writeTimeout)
			}
			_ = wd.SetWriteDeadline(at)
		}
	}
}

// flush sends what the stream wrote to the client.
func (s *stream) flush() error {
	c := s.controls()
	switch {
	case c.flushError != nil:
		return c.flushError.FlushError()
	case c.flusher != nil:
		c.flusher.Flush()
		return nil
	}
	return http.ErrNotSupported
}

// control is what a stream needs of its response writer besides writing
// (flushing, a write deadline), found under the writer's wrappers as
// http.ResponseController finds it, but once per stream and without
// allocating on each use: a ResponseController's unsupported deadline
// allocates an error on every write.
type control struct {
	found      bool
	flushError interface{ FlushError() error }
	flusher    http.Flusher
	deadliner  interface{ SetWriteDeadline(time.Time) error }
}

func (s *stream) controls() *control {
	c := &s.ctl
	if c.found {
		return c
	}
	c.found = true
	c.deadliner, _ = WriterAs[interface{ SetWriteDeadline(time.Time) error }](s.w)
	if s.maxUnsent > 0 && c.deadliner != nil {
		s.setCutDeadliner(c.deadliner)
	}
	// A writer that flushes with an error is preferred to one that
	// flushes without, level by level, as http.ResponseController does.
	for w := s.w; w != nil && c.flushError == nil && c.flusher == nil; w = unwrap(w) {
		if f, ok := w.(interface{ FlushError() error }); ok {
			c.flushError = f
		} else if f, ok := w.(http.Flusher); ok {
			c.flusher = f
		}
	}
	return c
}

// WriterAs returns the first writer in w's chain of wrappers (w, then
// what its Unwrap returns, and so on) that is a T, as
// http.ResponseController looks for what it calls, without allocating
// one; ok is false when there is none.
func WriterAs[T any](w http.ResponseWriter) (t T, ok bool) {
	for ; w != nil; w = unwrap(w) {
		if t, ok = w.(T); ok {
			return t, true
		}
	}
	return t, false
}

// unwrap returns the writer w wraps, nil when it wraps none.
func unwrap(w http.ResponseWriter) http.ResponseWriter {
	if u, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok {
		return u.Unwrap()
	}
	return nil
}

// end ends the stream: its HTTP handler returns.
func (s *stream) end() {
	if !s.ended {
		s.ended = true
		close(s.done)
	}
}

// stop ends the stream from outside (the session closed, the handler
// asked); on 2025-11-25 and later a retry after reconnectAfter is sent
// first when it is positive.
func (s *stream) stop(reconnectAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if reconnectAfter > 0 && s.version >= "2025-11-25" && s.mode != modeJSON {
		s.mode = modeSSE
		_ = s.event("close", nil, strconv.FormatInt(reconnectAfter.Milliseconds(), 10), "")
	}
	s.end()
}

// finish ends the stream when its handler returns, and writes the status
// line of a stream that wrote nothing (202 for no calls).
func (s *stream) finish(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started && status != 0 {
		s.started = true
		s.w.WriteHeader(status)
	}
	if s.ctl.deadliner != nil && s.writeTimeout > 0 {
		// The deadline is the connection's: a later request on it must
		// not inherit this one's.
		_ = s.ctl.deadliner.SetWriteDeadline(time.Time{})
	}
	s.end()
}

// errorStatus is the HTTP status of an error answer of protocol version
// to a call of a method MCP defines (known) or not, 0 for none (200), as
// the SDK's transport answers. On 2026-07-28: 404 for -32601; 400 for
// invalid params, an unsupported protocol version or missing client
// capabilities. Before it, every error to a method MCP defines is a 200
// (among them -32601 for one the server has no capability for), and
// -32601 to any other method a 400, as the SDK's transport refuses a
// method its server does not know (this transport leaves such methods to
// the session, which knows the custom ones).
func errorStatus(resp *jsonrpc.Response, version string, known bool) int {
	if resp.Error == nil {
		return 0 // before asRPCError: an answer costs no allocation
	}
	jerr := asRPCError(resp.Error)
	if jerr == nil {
		return 0
	}
	if version < newProtocol {
		if jerr.Code == jsonrpc.CodeMethodNotFound && !known {
			return http.StatusBadRequest
		}
		return 0
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// asRPCError returns err's JSON-RPC error, nil when it has none.
func asRPCError(err error) *jsonrpc.Error {
	var jerr *jsonrpc.Error
	if errors.As(err, &jerr) {
		return jerr
	}
	return nil
}

func joinArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}
