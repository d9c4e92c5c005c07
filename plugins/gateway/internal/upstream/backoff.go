package upstream

import (
	"log/slog"
	"time"
)

// Backoff is the wait between two attempts to reach an upstream that
// went away: Min before the first, then twice as long after each
// failure, up to Max.
type Backoff struct {
	Min, Max time.Duration
}

// Retry calls try after each wait until it succeeds, and returns true
// then, or false once done is closed. It tells failed of each failure,
// with the wait before the next attempt.
func (b Backoff) Retry(done <-chan struct{}, try func() error, failed func(err error, next time.Duration)) bool {
	wait := b.Min
	for {
		timer := time.NewTimer(wait)
		select {
		case <-done:
			timer.Stop()
			return false
		case <-timer.C:
		}
		err := try()
		if err == nil {
			return true
		}
		wait = min(2*wait, b.Max)
		failed(err, wait)
	}
}

// Keep runs fn until it returns, or done is closed: after a panic
// (recovered and logged as [Go] says, naming what), it runs fn again
// once Min has passed, so that what fn keeps going is not lost to one
// bug.
func (b Backoff) Keep(log *slog.Logger, what string, done <-chan struct{}, fn func()) {
	for {
		panicked := true
		func() {
			defer Recovered(log, what)
			fn()
			panicked = false
		}()
		if !panicked {
			return
		}
		timer := time.NewTimer(b.Min)
		select {
		case <-done:
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}
