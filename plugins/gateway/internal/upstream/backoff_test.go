package upstream_test

import (
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestBackoffRetry fails a number of attempts: the waits double from
// Min up to Max, and Retry returns true at the first success.
func TestBackoffRetry(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name      string
		b         upstream.Backoff
		failures  int
		wantWaits []time.Duration
	}{
		{"at once", upstream.Backoff{Min: ms, Max: 4 * ms}, 0, nil},
		{"doubling", upstream.Backoff{Min: ms, Max: 8 * ms}, 3, []time.Duration{2 * ms, 4 * ms, 8 * ms}},
		{"capped", upstream.Backoff{Min: ms, Max: 3 * ms}, 4, []time.Duration{2 * ms, 3 * ms, 3 * ms, 3 * ms}},
		{"min is max", upstream.Backoff{Min: 2 * ms, Max: 2 * ms}, 2, []time.Duration{2 * ms, 2 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tries := 0
			var waits []time.Duration
			ok := tt.b.Retry(make(chan struct{}), func() error {
				if tries++; tries <= tt.failures {
					return errors.New("refused")
				}
				return nil
			}, func(err error, next time.Duration) { waits = append(waits, next) })
			if !ok || tries != tt.failures+1 {
				t.Errorf("Retry = %v after %d tries, want true after %d", ok, tries, tt.failures+1)
			}
			if !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("waits %v, want %v", waits, tt.wantWaits)
			}
		})
	}
}

// TestBackoffRetryDone: Retry returns false once done is closed, during
// a wait, without another attempt.
func TestBackoffRetryDone(t *testing.T) {
	done := make(chan struct{})
	tries := 0
	b := upstream.Backoff{Min: time.Millisecond, Max: time.Hour}
	ok := b.Retry(done, func() error {
		tries++
		return errors.New("refused")
	}, func(error, time.Duration) {
		if tries == 2 {
			close(done)
		}
	})
	if ok || tries != 2 {
		t.Errorf("Retry = %v after %d tries, want false after 2", ok, tries)
	}
}

// TestBackoffKeep runs a func that panics twice: Keep runs it again
// after each panic, and returns once it returns; once done is closed it
// does not run it again.
func TestBackoffKeep(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name      string
		closeDone bool
		wantRuns  int
	}{
		{"returns", false, 3},
		{"done", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			if tt.closeDone {
				close(done)
			}
			runs := 0
			upstream.Backoff{Min: time.Millisecond}.Keep(log, "testing", done, func() {
				if runs++; runs < 3 {
					panic("bug")
				}
			})
			if runs != tt.wantRuns {
				t.Errorf("ran %d times, want %d", runs, tt.wantRuns)
			}
		})
	}
}
