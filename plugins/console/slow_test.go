package console

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

// A viewer's buffer holds viewerBuffer runs: offering more drops the
// oldest and counts them.
func TestViewerBufferBounded(t *testing.T) {
	v := newViewer()
	for i := range viewerBuffer + 36 {
		v.offer(&record{Seq: uint64(i + 1)})
	}
	q, dropped := v.take()
	if len(q) != viewerBuffer || dropped != 36 {
		t.Fatalf("%d queued, %d dropped; want %d and 36", len(q), dropped, viewerBuffer)
	}
	if q[0].Seq != 37 || q[len(q)-1].Seq != viewerBuffer+36 {
		t.Errorf("kept runs %d…%d, want the newest", q[0].Seq, q[len(q)-1].Seq)
	}
	if q, dropped := v.take(); len(q) != 0 || dropped != 0 {
		t.Errorf("a second take: %d, %d", len(q), dropped)
	}
}

// stuckWriter is a ResponseWriter whose writes wait until released, as a
// viewer's that stopped reading.
type stuckWriter struct {
	header  http.Header
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
	release chan struct{}
	first   chan struct{}
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	n := w.writes
	w.mu.Unlock()
	if n == 2 {
		close(w.first)
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}
func (w *stuckWriter) Flush() {}

func (w *stuckWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// A viewer that reads slower than runs finish loses the oldest runs past
// its buffer, and the stream says how many with an event "dropped"; the
// feed never waits for it.
func TestSlowViewerDropsWithMarker(t *testing.T) {
	p := New(Config{Token: "slow-viewer-token-0123456789"})
	t.Cleanup(func() { p.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	w := &stuckWriter{header: http.Header{}, release: make(chan struct{}), first: make(chan struct{})}
	req := httptest.NewRequest(http.MethodGet, "/console/events", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.events(w, req.WithContext(ctx))
	}()
	for { // the stream is subscribed once its first write is done
		if w.String() != "" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.ring.add(&record{Flow: "tools:call-tool", Outcome: outcomeOK}) // its write gets stuck
	<-w.first
	const n = viewerBuffer + 10
	for range n {
		p.ring.add(&record{Flow: "tools:call-tool", Outcome: outcomeOK})
	}
	close(w.release)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.String(), "event: dropped\ndata: 10\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no drop marker:\n%s", w.String())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := strings.Count(w.String(), "event: run\n"); got != 1+viewerBuffer {
		t.Errorf("%d runs sent, want %d", got, 1+viewerBuffer)
	}
}
