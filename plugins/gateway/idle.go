package gateway

import (
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultIdleTimeout is [Upstream.IdleTimeout] when it is 0: how long a
// client session's upstream session (over stdio, its process) stays open
// without a request through it.
const DefaultIdleTimeout = 5 * time.Minute

// idleTracker knows, for each upstream session, how many forwarded
// requests are in flight through it and when the last one ended. Its zero
// value is ready.
type idleTracker struct {
	mu    sync.Mutex
	conns map[*conn]*idleState
}

type idleState struct {
	inFlight int
	last     time.Time
}

// busy marks a request through c in flight; the func it returns marks it
// ended.
func (t *idleTracker) busy(c *conn) func() {
	t.mu.Lock()
	if t.conns == nil {
		t.conns = map[*conn]*idleState{}
	}
	s := t.conns[c]
	if s == nil {
		s = &idleState{}
		t.conns[c] = s
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

// idleFor reports how long c has had no request in flight, and false
// when it has one in flight or has served none yet.
func (t *idleTracker) idleFor(c *conn, now time.Time) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.conns[c]
	if s == nil || s.inFlight > 0 {
		return 0, false
	}
	return now.Sub(s.last), true
}

// keep forgets the upstream sessions not in open.
func (t *idleTracker) keep(open map[*conn]bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.conns {
		if !open[c] {
			delete(t.conns, c)
		}
	}
}

// idleTimeout returns the upstream's idle timeout, 0 for never.
func (c *Upstream) idleTimeout() time.Duration {
	switch {
	case c.IdleTimeout < 0:
		return 0
	case c.IdleTimeout == 0:
		return DefaultIdleTimeout
	}
	return c.IdleTimeout
}

// reapIdle closes, until the gateway closes, the client sessions'
// upstream sessions that served no request for the idle timeout, checking
// four times per timeout; the client session's next request opens a new
// one. The gateway's own session and the shared ones stay. An idle
// session is first retired (no new request gets it; the gateway's Close
// still closes it), and closed at the next check if no request took it
// meanwhile, so that a request that got it just before never finds it
// closing.
func (u *upstream) reapIdle() {
	d := u.cfg.idleTimeout()
	if d <= 0 || u.cfg.Shared {
		return
	}
	tick := time.NewTicker(max(d/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-u.done:
			return
		case now := <-tick.C:
			u.reapOnce(d, now)
		}
	}
}

// retired is the key in upstream.sessions of an idle upstream session
// that reapIdle closes at its next check.
type retired struct{ c *conn }

// reapOnce closes the retired upstream sessions without a request in
// flight, and retires the client sessions' ones idle for d at now.
func (u *upstream) reapOnce(d time.Duration, now time.Time) {
	open := map[*conn]bool{}
	var closing []*conn
	u.mu.Lock()
	for key, p := range u.sessions {
		switch k := key.(type) {
		case retired:
			if _, idle := u.idle.idleFor(k.c, now); idle {
				closing = append(closing, k.c)
				delete(u.sessions, key)
			} else {
				open[k.c] = true
			}
		case *mcp.ServerSession:
			select {
			case <-p.ready:
			default:
				continue
			}
			if p.conn == nil {
				continue
			}
			open[p.conn] = true
			if len(u.own[k]) > 0 {
				// A session subscribed to resources on its upstream
				// session waits for updates: it is not idle.
				continue
			}
			if idle, ok := u.idle.idleFor(p.conn, now); ok && idle >= d {
				delete(u.sessions, key)
				u.sessions[retired{p.conn}] = p
			}
		}
	}
	u.mu.Unlock()
	u.idle.keep(open)
	for _, c := range closing {
		u.log.Debug("gateway: closing a client session's idle upstream session", slog.Duration("idle_timeout", d))
		c.cs.Close()
	}
}
