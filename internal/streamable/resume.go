package streamable

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// primingVersion is the first protocol version with priming events: an
// event with an ID and no data that opens a POST's SSE stream, so that a
// client cut off before the first message can resume.
const primingVersion = "2025-11-25"

// record is a resumable stream's place in the event store: the session
// and stream it is kept under, and the index of its last event (-1 for
// none). Its stream's mu guards last and every append, so that the store
// holds the stream's events in the order they went out.
type record struct {
	store   mcp.EventStore
	session string
	id      string // "" for the GET stream, as on the SDK's handler
	last    int
}

// formatEventID returns the ID of event idx of stream sid: <sid>_<idx>,
// the SDK's format (and the TypeScript SDK's), so that a client resumes
// the same way whichever server it talks to. Stream IDs are
// crypto/rand.Text (base32, no underscore); the GET stream's is "".
func formatEventID(sid string, idx int) string {
	return sid + "_" + strconv.Itoa(idx)
}

// parseEventID reads a Last-Event-ID as formatEventID writes it; ok is
// false for anything else, as the SDK's handler refuses it.
func parseEventID(eventID string) (sid string, idx int, ok bool) {
	sid, n, found := strings.Cut(eventID, "_")
	if !found || strings.Contains(n, "_") {
		return "", 0, false
	}
	idx, err := strconv.Atoi(n)
	if err != nil || idx < 0 {
		return "", 0, false
	}
	return sid, idx, true
}

// append stores data as the stream's next event and returns its ID; ""
// (and no event ID) for a stream without a record, or when the store
// fails, in which case err says why.
func (r *record) append(data []byte) (string, error) {
	if r == nil {
		return "", nil
	}
	// The store sees each event once, and no request context lasts as
	// long as a stream: none is passed down.
	if err := r.store.Append(context.Background(), r.session, r.id, data); err != nil {
		return "", err
	}
	r.last++
	return formatEventID(r.id, r.last), nil
}

// newRecord opens stream sid of the session in the store.
func newRecord(ctx context.Context, store mcp.EventStore, session, sid string) (*record, error) {
	if err := store.Open(ctx, session, sid); err != nil {
		return nil, err
	}
	return &record{store: store, session: session, id: sid, last: -1}, nil
}

// resumable reports whether a POST's stream of mode m on c is kept in the
// event store: with a store, on a session with an ID (the only kind a GET
// can name), on a protocol that resumes (2026-07-28 does not), and when
// the stream can be SSE (a JSON body cannot be resumed).
func (c *conn) resumable(m mode, version string) bool {
	return c.store != nil && c.id != "" && !c.stateless && m != modeJSON && version < newProtocol
}

// openRecord gives s, a POST's stream, a record of its own in the event
// store. It writes the refusal and returns false when the store refuses.
func (h *Handler) openRecord(w http.ResponseWriter, r *http.Request, c *conn, s *stream) bool {
	rec, err := newRecord(r.Context(), c.store, c.id, rand.Text())
	if err != nil {
		http.Error(w, fmt.Sprintf("storing stream: %v", err), http.StatusInternalServerError)
		return false
	}
	s.rec = rec
	return true
}

// prime opens s, a resumable POST stream, with a priming event on the
// versions that have them: s is then SSE from the start, and a client cut
// off before the first message can resume.
func (h *Handler) prime(s *stream) {
	if s.version < primingVersion {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = modeSSE
	id, err := s.rec.append(nil)
	if err != nil {
		h.opts.Logger.Warn("hookflow: storing a priming event", "error", err)
		return
	}
	_ = s.event("prime", nil, "", id)
}

// keepLocked stores data, a message of s while no HTTP response carries
// it, for a client to resume; resp is non-nil when it answers one of s's
// calls. Its caller holds s.mu.
func (s *stream) keepLocked(data []byte, resp *jsonrpc.Response) error {
	if resp != nil {
		s.pending--
	}
	if _, err := s.rec.append(data); err != nil {
		return fmt.Errorf("storing the message of a stream no client reads: %w", err)
	}
	return nil
}

// keeping reports whether a message for s goes to the store alone: s is
// resumable and no HTTP response carries it now. Its caller holds s.mu.
func (s *stream) keeping() bool {
	return s.rec != nil && (s.w == nil || s.ended)
}

// release lets go of the HTTP response w, which carried s until its
// handler returns, so that a GET with Last-Event-ID may take s up.
func (s *stream) release(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == w {
		s.w, s.ctl = nil, control{}
		s.setCutDeadliner(nil)
	}
}

// settle forgets s as resumable once it has answered all its calls: what
// is left of it is in the store.
func (c *conn) settle(s *stream) {
	s.mu.Lock()
	done := s.pending <= 0 && !s.standalone
	s.mu.Unlock()
	if done {
		c.mu.Lock()
		if c.streams[s.rec.id] == s {
			delete(c.streams, s.rec.id)
		}
		c.mu.Unlock()
	}
}

// keepEvents gives c, a new stateful session's, the event store, and its
// GET stream a record there. It writes the refusal and returns false when
// the store refuses.
func (h *Handler) keepEvents(w http.ResponseWriter, r *http.Request, c *conn, store mcp.EventStore) bool {
	rec, err := newRecord(r.Context(), store, c.id, "")
	if err != nil {
		h.opts.Logger.Error("hookflow: opening a session's GET stream in the event store", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return false
	}
	c.store, c.streams = store, map[string]*stream{}
	// No GET carries it yet: what is sent on it is stored, for the first
	// GET to replay.
	s := newStream(nil, modeSSE, defaultVersion, 0)
	s.standalone, s.rec = true, rec
	s.end()
	c.standalone = s
	return true
}

// serveGETResume serves a GET on a session with an event store, or one
// with Last-Event-ID on a session without: it refuses a malformed ID, or
// any without a store, with 400, as the SDK's handler does.
func (h *Handler) serveGETResume(w http.ResponseWriter, r *http.Request, c *conn) {
	sid, after := "", -1
	if len(r.Header.Values(lastEventIDHeader)) > 0 {
		eid := r.Header.Get(lastEventIDHeader)
		var ok bool
		if sid, after, ok = parseEventID(eid); !ok {
			http.Error(w, fmt.Sprintf("malformed Last-Event-ID %q", eid), http.StatusBadRequest)
			return
		}
		if c.store == nil {
			http.Error(w, "stream replay unsupported", http.StatusBadRequest)
			return
		}
	}
	h.serveResume(w, r, c, sid, after)
}

// serveResume serves a GET on a session whose conn has an event store:
// it replays the events of the stream Last-Event-ID names that follow
// it (the GET stream's from its start without Last-Event-ID, as the
// SDK's handler does), then carries the stream on if it has calls left
// or is the GET stream. A stream another request carries is refused
// with 409; events the store no longer has, or a stream of another
// session or none, with 400, which a client does not take to mean its
// session is gone.
func (h *Handler) serveResume(w http.ResponseWriter, r *http.Request, c *conn, sid string, after int) {
	c.mu.Lock()
	s := c.standalone
	if sid != "" {
		s = c.streams[sid]
	}
	c.mu.Unlock()
	if s == nil {
		// Over, or never this session's: the store alone knows.
		s = newStream(w, modeSSE, defaultVersion, 0)
		s.rec = &record{store: c.store, session: c.id, id: sid, last: after}
		h.bound(s)
		s.mu.Lock()
		s.replayLocked(r.Context(), after)
		s.mu.Unlock()
		s.finish(0)
		return
	}
	s.mu.Lock()
	if s.w != nil {
		s.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	s.w, s.ctl, s.started, s.ended, s.done = w, control{}, false, false, make(chan struct{})
	s.setCutDeadliner(nil)
	s.cut.Store(false)
	// Its bounds are the handler's since it was made: deliver reads
	// maxUnsent without s.mu.
	ok := s.replayLocked(r.Context(), after)
	over := !s.standalone && s.pending <= 0
	s.mu.Unlock()
	defer s.release(w)
	if ok && !over {
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-c.done:
		}
	}
	s.finish(0)
}

// replayLocked writes the events of s's stream after index after, one at
// a time as the store yields them (a replay holds one event, not the
// stream), and the headers and a comment when there were none, and
// reports whether s may carry on. An error of the store before any event
// answers 400. Its caller holds s.mu, so no new event is stored or sent
// before the replay ends.
func (s *stream) replayLocked(ctx context.Context, after int) bool {
	idx := after
	for data, err := range s.rec.store.After(ctx, s.rec.session, s.rec.id, after) {
		if err != nil {
			if !s.started {
				s.started, s.ended = true, true
				http.Error(s.w, "failed to replay events", http.StatusBadRequest)
			} else {
				s.end()
			}
			return false
		}
		idx++
		if len(data) == 0 {
			continue // a priming event
		}
		if s.event("message", data, "", formatEventID(s.rec.id, idx)) != nil {
			return false
		}
	}
	if !s.started {
		s.startLocked(http.StatusOK)
		_, _ = s.w.Write([]byte(": ok\n\n"))
		_ = s.flush()
	}
	return true
}
