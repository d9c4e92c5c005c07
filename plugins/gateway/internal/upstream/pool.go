package upstream

import (
	"log/slog"
	"sync"
	"time"
)

// poolConn is what a [Pool] needs of an upstream session: whether it is
// over, waiting for its end and closing it. A pointer to a type that
// embeds [Session] is one.
type poolConn interface {
	comparable
	Broken() bool
	Wait() error
	Close() error
}

// Slot is one session of a [Pool]: being opened until its opener calls
// [Slot.Opened], then open or failed.
type Slot[C poolConn] struct {
	ready  chan struct{}
	conn   C
	err    error
	client bool
}

// Opened records what opening the slot's session gave: the session, or
// why there is none. The opener calls it once; it wakes the waiters.
func (s *Slot[C]) Opened(c C, err error) {
	s.conn, s.err = c, err
	close(s.ready)
}

// Done is closed once the slot is opened.
func (s *Slot[C]) Done() <-chan struct{} { return s.ready }

// Result returns the slot's session, or the error opening it failed
// with; only once Done is closed.
func (s *Slot[C]) Result() (C, error) { return s.conn, s.err }

// Conn returns the slot's session when it is open, without waiting.
func (s *Slot[C]) Conn() (C, bool) {
	var zero C
	select {
	case <-s.ready:
	default:
		return zero, false
	}
	if s.err != nil {
		return zero, false
	}
	return s.conn, true
}

// broken reports whether s is open and its session over.
func (s *Slot[C]) broken() bool {
	c, ok := s.Conn()
	return ok && c.Broken()
}

// Pool is an upstream's sessions other than the gateway's own, each
// under a key K: the own session of a client session (a client slot,
// which [Pool.Max] bounds), or one that client sessions share. It knows
// the requests in flight through each session ([Pool.Busy]), and retires
// then closes the client sessions that served none for a while
// ([Pool.Reap]). Its zero value is ready; it is safe for concurrent use,
// and calls nothing of its caller's while it holds its lock but Reap's
// keep, so a caller may call it under a lock of its own.
type Pool[K comparable, C poolConn] struct {
	// Max bounds the client slots, opening or open (not the retired
	// ones); 0 or negative: no bound.
	Max int
	// Log logs a panic met in the pool's goroutines (closing, holding
	// sessions).
	Log *slog.Logger

	mu    sync.Mutex
	slots map[K]*Slot[C]
	// retired are the idle client sessions no request gets any more,
	// closed at the next Reap that finds them without one in flight.
	retired map[C]*Slot[C]
	// seq counts the slots made.
	seq  uint64
	idle idleTrack[C]
}

// Take returns the slot under key. When there is none, or its session
// is over (which is then closed, in the background), it makes one, the
// seq-th the pool made (seq > 0), which the caller opens and ends with
// [Slot.Opened]; seq is 0 for a slot already there. A client slot that
// would exceed Max is not made: ok is false.
func (p *Pool[K, C]) Take(key K, client bool) (s *Slot[C], seq uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s = p.slots[key]
	if s != nil && s.broken() {
		// Replaced now, not after the request failed on it too.
		delete(p.slots, key)
		old := s.conn
		Go(p.Log, "closing a broken upstream session", func() { _ = old.Close() })
		s = nil
	}
	if s != nil {
		return s, 0, true
	}
	if client && p.Max > 0 && p.clients() >= p.Max {
		return nil, 0, false
	}
	if p.slots == nil {
		p.slots = map[K]*Slot[C]{}
	}
	s = &Slot[C]{ready: make(chan struct{}), client: client}
	p.slots[key] = s
	p.seq++
	return s, p.seq, true
}

// clients counts the client slots. Callers hold p.mu.
func (p *Pool[K, C]) clients() int {
	n := 0
	for _, s := range p.slots {
		if s.client {
			n++
		}
	}
	return n
}

// Get returns the slot under key, or nil.
func (p *Pool[K, C]) Get(key K) *Slot[C] {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.slots[key]
}

// Forget removes s from under key, and reports whether it was there
// (not replaced, dropped or retired meanwhile).
func (p *Pool[K, C]) Forget(key K, s *Slot[C]) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.slots[key] != s {
		return false
	}
	delete(p.slots, key)
	return true
}

// Hold keeps s, opened under key, until its session ends: then it
// forgets it, and tells ended whether it was still there (see
// [Pool.Forget]). client, when not nil, waits for the end of the client
// session the session is for (its Wait), which closes the session.
func (p *Pool[K, C]) Hold(key K, s *Slot[C], client func() error, ended func(forgotten bool)) {
	c := s.conn
	Go(p.Log, "tracking a client's upstream session", func() {
		if client != nil {
			Go(p.Log, "waiting for a client session", func() {
				_ = client()
				_ = c.Close()
			})
		}
		_ = c.Wait()
		ended(p.Forget(key, s))
	})
}

// Conns returns the open sessions of the pool, retired ones included,
// in no order.
func (p *Pool[K, C]) Conns() []C {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := make([]C, 0, len(p.slots)+len(p.retired))
	for _, s := range p.slots {
		if c, ok := s.Conn(); ok {
			cs = append(cs, c)
		}
	}
	for c := range p.retired {
		cs = append(cs, c)
	}
	return cs
}

// Drop empties the pool and closes its sessions in the background, each
// once opened; the group is done when they are closed (a stdio
// upstream's process has ended).
func (p *Pool[K, C]) Drop() *sync.WaitGroup {
	p.mu.Lock()
	slots := make([]*Slot[C], 0, len(p.slots)+len(p.retired))
	for _, s := range p.slots {
		slots = append(slots, s)
	}
	for _, s := range p.retired {
		slots = append(slots, s)
	}
	p.slots, p.retired = nil, nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Go(func() {
			defer Recovered(p.Log, "closing a client's upstream session")
			<-s.ready
			if s.err == nil {
				_ = s.conn.Close()
			}
		})
	}
	return &wg
}

// Busy marks a request through session c in flight; the func it returns
// marks it ended.
func (p *Pool[K, C]) Busy(c C) func() { return p.idle.Busy(c) }

// Reap returns the retired sessions without a request in flight, which
// it forgot and the caller closes, and retires the open client sessions
// idle for d at now, but those keep holds on to (keep is called under
// the pool's lock: it must not call the pool). A retired session gets no
// new request; a request that got it just before still finds it open.
func (p *Pool[K, C]) Reap(d time.Duration, now time.Time, keep func(K) bool) (closing []C) {
	open := map[C]bool{}
	p.mu.Lock()
	for c := range p.retired {
		if _, idle := p.idle.For(c, now); idle {
			closing = append(closing, c)
			delete(p.retired, c)
		} else {
			open[c] = true
		}
	}
	for key, s := range p.slots {
		c, ok := s.Conn()
		if !s.client || !ok {
			continue
		}
		open[c] = true
		if keep(key) {
			continue
		}
		if idle, ok := p.idle.For(c, now); ok && idle >= d {
			delete(p.slots, key)
			if p.retired == nil {
				p.retired = map[C]*Slot[C]{}
			}
			p.retired[c] = s
		}
	}
	p.mu.Unlock()
	p.idle.Keep(open)
	return closing
}
