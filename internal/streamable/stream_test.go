package streamable

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// deadlineRecorder is a response writer that records the write deadlines
// set on it, as net/http's sets them on its connection.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t)
	return nil
}

// TestStreamWriteDeadline checks that each write of a stream to a slow
// client has a deadline, and that the stream's end clears it, so that a
// later request on the same connection does not inherit it.
func TestStreamWriteDeadline(t *testing.T) {
	w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	s := newStream(w, modeSSE, "2025-11-25", 1)
	s.writeTimeout = time.Minute
	before := time.Now()
	if err := s.deliver([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.deliver([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), &jsonrpc.Response{}); err != nil {
		t.Fatal(err)
	}
	s.finish(0)
	if len(w.deadlines) != 3 {
		t.Fatalf("deadlines set: %v, want one per event and a clear", w.deadlines)
	}
	for _, d := range w.deadlines[:2] {
		if d.Before(before.Add(time.Minute)) {
			t.Errorf("write deadline %v, want a minute after the write", d)
		}
	}
	if !w.deadlines[2].IsZero() {
		t.Errorf("the stream's end left deadline %v, want it cleared", w.deadlines[2])
	}
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("response %d %q", w.Code, w.Header().Get("Content-Type"))
	}
}
