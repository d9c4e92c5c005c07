package upstream

import (
	"sync"
	"time"
)

// idleTrack knows, for each upstream session (by its key K), how many
// forwarded requests are in flight through it and when the last one
// ended, so that the gateway closes the sessions that served none for a
// while. Its zero value is ready; it is safe for concurrent use.
type idleTrack[K comparable] struct {
	mu       sync.Mutex
	sessions map[K]*idleState
}

type idleState struct {
	inFlight int
	last     time.Time
}

// Busy marks a request through session k in flight; the func it returns
// marks it ended.
func (t *idleTrack[K]) Busy(k K) func() {
	t.mu.Lock()
	if t.sessions == nil {
		t.sessions = map[K]*idleState{}
	}
	s := t.sessions[k]
	if s == nil {
		s = &idleState{}
		t.sessions[k] = s
	}
	s.inFlight++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		s.inFlight--
		s.last = time.Now()
		t.mu.Unlock()
	}
}

// For reports how long session k has had no request in flight at now,
// and false when it has one in flight or has served none yet (or was
// forgotten since).
func (t *idleTrack[K]) For(k K, now time.Time) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[k]
	if s == nil || s.inFlight > 0 {
		return 0, false
	}
	return now.Sub(s.last), true
}

// Keep forgets the sessions not in open.
func (t *idleTrack[K]) Keep(open map[K]bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.sessions {
		if !open[k] {
			delete(t.sessions, k)
		}
	}
}
