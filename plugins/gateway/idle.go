package gateway

import (
	"log/slog"
	"time"
)

// DefaultIdleTimeout is [Upstream.IdleTimeout] when it is 0: how long a
// client session's upstream session (over stdio, its process) stays open
// without a request through it.
const DefaultIdleTimeout = 5 * time.Minute

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

// reapOnce closes the retired upstream sessions without a request in
// flight, and retires the client sessions' ones idle for d at now but
// those subscribed to resources (see [ups.Pool.Reap]).
func (u *upstream) reapOnce(d time.Duration, now time.Time) {
	u.mu.Lock()
	closing := u.pool.Reap(d, now, func(k sessionKey) bool {
		// A session subscribed to resources on its upstream session
		// waits for updates: it is not idle.
		return len(u.own[k.ss]) > 0
	})
	u.mu.Unlock()
	for _, c := range closing {
		u.log.Debug("gateway: closing a client session's idle upstream session", slog.Duration("idle_timeout", d))
		c.CS.Close()
	}
}
