package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/hookflow/hookflow/internal/streamable"
)

// DefaultMaxBodyBytesInFlight is the bound on the memory that the request
// bodies a server's HTTP handler is reading hold together, when
// [Options.MaxBodyBytesInFlight] is 0: sixteen bodies of the SDK's default
// per-body limit (4 MiB), or thousands of ordinary calls.
const DefaultMaxBodyBytesInFlight = 64 << 20

// preallocBytes is the most ReadBody allocates for a body before its bytes
// arrive: a declared Content-Length up to it is allocated at once (one
// allocation for the common small call); past it the buffer grows, at most
// doubling, as bytes really arrive. A peer that declares a length it never
// sends makes the server hold at most this much, not the declared length.
const preallocBytes = 64 << 10

// errBodyBudget is the error of a body that would take the bodies in flight
// past their bound; the server answers 503 with Retry-After.
var errBodyBudget = errors.New("the server is reading too many request bodies at once; retry shortly")

// bodyBudget bounds the bytes that request bodies being read hold together.
// It is a counter, not a queue: a body that does not fit is refused, never
// waits, so a slow sender cannot make other requests wait behind it.
type bodyBudget struct {
	max  int64 // < 0: no bound
	used atomic.Int64
}

func newBodyBudget(max int64) *bodyBudget {
	if max == 0 {
		max = DefaultMaxBodyBytesInFlight
	}
	return &bodyBudget{max: max}
}

func (b *bodyBudget) take(n int64) bool {
	if b.max < 0 {
		b.used.Add(n)
		return true
	}
	for {
		u := b.used.Load()
		if u+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// bodyHold is what one HTTP request holds of a budget: the capacity of the
// buffer its body is read into. It is released once, when the server has
// handed the body on (the SDK read it to its end) or the request ended,
// whichever comes first.
type bodyHold struct {
	budget *bodyBudget
	held   atomic.Int64
	done   atomic.Bool
}

// grow reserves n more bytes, or reports false when the budget has no room.
func (h *bodyHold) grow(n int64) bool {
	if h == nil {
		return true
	}
	if h.done.Load() || !h.budget.take(n) {
		return false
	}
	h.held.Add(n)
	return true
}

// release gives back all the hold has reserved; later calls do nothing.
func (h *bodyHold) release() {
	if h == nil || h.done.Swap(true) {
		return
	}
	h.budget.used.Add(-h.held.Swap(0))
}

type bodyHoldKey struct{}

// withBodyHold returns r with a hold on budget in its context, and the
// hold; a request that already has one (an outer handler of the same
// server put it there) keeps it, and nil is returned for the caller to
// release nothing.
func withBodyHold(r *http.Request, budget *bodyBudget) (*http.Request, *bodyHold) {
	if _, ok := r.Context().Value(bodyHoldKey{}).(*bodyHold); ok {
		return r, nil
	}
	h := &bodyHold{budget: budget}
	return r.WithContext(context.WithValue(r.Context(), bodyHoldKey{}, h)), h
}

func bodyHoldOf(r *http.Request) *bodyHold {
	h, _ := r.Context().Value(bodyHoldKey{}).(*bodyHold)
	return h
}

// GuardBodies returns next with the server's bound on request bodies in
// flight ([Options.MaxBodyBytesInFlight]) applied to every [ReadBody] that
// next makes: middleware that reads bodies before the server's handler
// (e.g. the auth plugin's scope challenge) wraps its handler in it, so that
// its reads count. The handler of [Server.HTTPHandler] is guarded already;
// guarding twice changes nothing.
func (s *Server) GuardBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, hold := withBodyHold(r, s.bodies)
		defer hold.release()
		next.ServeHTTP(w, r)
	})
}

// ReadBody returns the body of r, read into memory once however many of
// hookflow's HTTP handlers (the server's, a plugin's middleware) ask for
// it: the first call reads it and leaves in r.Body a reader of the same
// bytes, which a later call returns without reading or copying again.
// Callers must not modify the bytes.
//
// With max ≥ 0, a body longer than max bytes is not kept: ReadBody stops
// after its first max+1 bytes, returns them and false, and r.Body reads the
// whole body again. A body that declares a Content-Length past max is not
// read at all: ReadBody returns no bytes and false. With max < 0 the body has no bound of its own; never
// use that for a peer you do not trust.
//
// ReadBody never allocates by the length a request declares: a declared
// Content-Length is a hint for bodies up to 64 KiB; larger buffers grow as
// bytes arrive. Behind a handler of a [Server] ([Server.HTTPHandler],
// [Server.GuardBodies]) the buffer counts against the server's bound on
// bodies in flight; when that has no room ReadBody stops and returns an
// error, and r.Body again reads the whole body.
func ReadBody(r *http.Request, max int64) (data []byte, whole bool, err error) {
	return readBody(r, max, bodyHoldOf(r))
}

// readBody is ReadBody with the hold (nil: none) the buffer counts against.
func readBody(r *http.Request, max int64, hold *bodyHold) (data []byte, whole bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, nil
	}
	if b, ok := r.Body.(*bufferedBody); ok && b.off == 0 {
		return b.data, true, nil
	}
	if max >= 0 && r.ContentLength > max {
		return nil, false, nil
	}
	data, err = readBounded(r.Body, r.ContentLength, max, hold)
	if err != nil || max >= 0 && int64(len(data)) > max {
		r.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(data), r.Body), Closer: r.Body}
		return data, false, err
	}
	r.Body = &bufferedBody{data: data, closer: r.Body}
	return data, true, nil
}

// readBounded reads src to its end, or to max+1 bytes when max ≥ 0.
// declared is the length the peer announced (≤ 0: none); hold, when not
// nil, must have room for every byte of capacity allocated.
func readBounded(src io.Reader, declared, max int64, hold *bodyHold) ([]byte, error) {
	limit := int64(-1) // most bytes to read; -1: all
	if max >= 0 {
		limit = max + 1
	}
	size := int64(512)
	if declared > 0 {
		size = min(declared+1, preallocBytes) // +1: the read that sees EOF
	}
	if limit >= 0 {
		size = min(size, limit)
	}
	if !hold.grow(size) {
		return nil, errBodyBudget
	}
	buf := make([]byte, 0, size)
	for {
		room := buf[len(buf):cap(buf)]
		if limit >= 0 && int64(len(buf))+int64(len(room)) > limit {
			room = room[:limit-int64(len(buf))]
		}
		n, err := src.Read(room)
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if limit >= 0 && int64(len(buf)) >= limit {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			grow := int64(cap(buf))
			if limit >= 0 {
				grow = min(grow, limit-int64(cap(buf)))
			}
			if !hold.grow(grow) {
				return buf, errBodyBudget
			}
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = next
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

// bodyReader reads POST bodies for hookflow's transport within the
// server's bounds: a body past max is refused
// 413 (unread when it declares its length), one that takes longer than
// timeout 408, one that finds no room in the bodies in flight 503.
type bodyReader struct {
	max     int64
	bodies  *bodyBudget
	timeout time.Duration
}

func (b *bodyReader) read(w http.ResponseWriter, req *http.Request) ([]byte, streamable.Releaser, bool) {
	hold := bodyHoldOf(req)
	var own *bodyHold // the hold this read releases: none under GuardBodies
	if hold == nil {
		own = &bodyHold{budget: b.bodies}
		hold = own
	}
	var conn readDeadliner
	if b.timeout > 0 {
		if conn = readDeadlinerOf(w); conn != nil && conn.SetReadDeadline(time.Now().Add(b.timeout)) != nil {
			conn = nil
		}
	}
	data, whole, err := readBody(req, b.max, hold)
	_ = req.Body.Close()
	if conn != nil {
		_ = conn.SetReadDeadline(time.Time{})
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		http.Error(w, fmt.Sprintf("the request body did not arrive within %v", b.timeout), http.StatusRequestTimeout)
	case errors.Is(err, errBodyBudget):
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case err == nil && !whole, err != nil && tooLarge(err):
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", b.max), http.StatusRequestEntityTooLarge)
	case err != nil:
		http.Error(w, "failed to read body", http.StatusBadRequest)
	default:
		if own == nil {
			return data, nil, true
		}
		return data, own, true
	}
	own.release()
	return nil, nil, false
}

// tooLarge reports whether err is http.MaxBytesReader's: a function of
// its own, so that the target errors.As needs is made on this path only.
func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// Release gives back what the hold reserved (for hookflow's transport).
func (h *bodyHold) Release() { h.release() }

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
