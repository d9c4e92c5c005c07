package upstream_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestBacklogDrain reads notifications and other messages, has some
// handled, and drains: Drain returns once every notification read was
// handled, and past its deadline brings the counts level so that the next
// Drain does not wait.
func TestBacklogDrain(t *testing.T) {
	const note = "notifications/progress"
	tests := []struct {
		name     string
		read     []string
		handled  []string
		late     int // notifications handled 50ms after Drain starts
		wantWait time.Duration
	}{
		{"nothing read", nil, nil, 0, 0},
		{"all handled", []string{note, note}, []string{note, note}, 0, 0},
		{"not counted", []string{"tools/list", "notifications/cancelled"}, nil, 0, 0},
		{"handled late", []string{note, note}, []string{note}, 1, 50 * time.Millisecond},
		{"never handled", []string{note}, nil, 0, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b upstream.Backlog
			for _, m := range tt.read {
				b.Read(m)
			}
			for _, m := range tt.handled {
				b.Handled(m)
			}
			go func() {
				time.Sleep(50 * time.Millisecond)
				for range tt.late {
					b.Handled(note)
				}
			}()
			start := time.Now()
			b.Drain(start.Add(200 * time.Millisecond))
			took := time.Since(start)
			if took < tt.wantWait || took > tt.wantWait+150*time.Millisecond {
				t.Errorf("Drain took %v, want about %v", took, tt.wantWait)
			}
			start = time.Now()
			b.Drain(start.Add(time.Second))
			if took := time.Since(start); took > 100*time.Millisecond {
				t.Errorf("the next Drain took %v, want none", took)
			}
		})
	}
}

// TestBacklogFlood reads a flood of notifications that nobody handles, as
// from an upstream that sends faster than the client's handlers: the
// reading is held past MaxBacklog, and let go when the handlers catch up
// with half, when the session ends, or after DrainTimeout.
func TestBacklogFlood(t *testing.T) {
	const note = "notifications/message"
	tests := []struct {
		name    string
		release func(*upstream.Backlog)
		within  time.Duration
	}{
		{"handlers catch up", func(b *upstream.Backlog) {
			for range upstream.MaxBacklog/2 + 1 {
				b.Handled(note)
			}
		}, 500 * time.Millisecond},
		{"session ends", (*upstream.Backlog).End, 500 * time.Millisecond},
		{"timeout", func(*upstream.Backlog) {}, upstream.DrainTimeout + 500*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b upstream.Backlog
			for range upstream.MaxBacklog {
				b.Read(note) // within the bound: not held
			}
			var wg sync.WaitGroup
			held := make(chan struct{})
			start := time.Now()
			wg.Go(func() { b.Read(note); close(held) })
			select {
			case <-held:
				t.Fatal("a read past MaxBacklog was not held")
			case <-time.After(50 * time.Millisecond):
			}
			tt.release(&b)
			wg.Wait()
			if took := time.Since(start); took > tt.within {
				t.Errorf("the read was held %v, want at most %v", took, tt.within)
			}
		})
	}
}
