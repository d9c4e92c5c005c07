package command

import (
	"context"
	"fmt"
	"sync"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// sessionKey tells sessions apart: by the transport's session ID, or, for
// sessions without one (stdio, in-memory), by the session itself, weakly
// held so that a closed session is forgotten.
type sessionKey struct {
	id string
	ss weak.Pointer[mcp.ServerSession]
}

func keyOf(r *flows.Request) sessionKey {
	if r.SessionID != "" {
		return sessionKey{id: r.SessionID}
	}
	if r.Session != nil {
		return sessionKey{ss: weak.Make(r.Session)}
	}
	return sessionKey{}
}

// limiter enforces a hook's rate limit and cooldown per session. It is off
// the hot path: a hook that is limited starts a process on every run.
type limiter struct {
	rate     RateLimit
	cooldown time.Duration

	mu       sync.Mutex
	sessions map[sessionKey]*bucket
}

type bucket struct {
	tokens  float64
	last    time.Time // when tokens was computed
	lastRun time.Time
}

// maxTracked bounds how many sessions a limiter remembers; past it, the
// sessions whose buckets are full again and whose cooldown is over are
// forgotten (they would behave the same as new ones).
const maxTracked = 4096

func newLimiter(rate RateLimit, cooldown time.Duration) *limiter {
	if rate.Calls == 0 && cooldown == 0 {
		return nil
	}
	return &limiter{rate: rate, cooldown: cooldown, sessions: map[sessionKey]*bucket{}}
}

// take spends one run of the session's budget, or says why it cannot.
func (l *limiter) take(k sessionKey, now time.Time) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.sessions[k]
	if b == nil {
		if len(l.sessions) >= maxTracked {
			l.prune(now)
		}
		b = &bucket{tokens: float64(l.rate.Calls), last: now}
		l.sessions[k] = b
	}
	if l.cooldown > 0 && !b.lastRun.IsZero() {
		if wait := l.cooldown - now.Sub(b.lastRun); wait > 0 {
			return fmt.Errorf("in its cooldown: it ran %v ago, and may run again in %v", now.Sub(b.lastRun).Round(time.Millisecond), wait.Round(time.Millisecond))
		}
	}
	if l.rate.Calls > 0 {
		refill := now.Sub(b.last).Seconds() * float64(l.rate.Calls) / l.rate.Per.Seconds()
		b.tokens, b.last = min(float64(l.rate.Calls), b.tokens+refill), now
		if b.tokens < 1 {
			return fmt.Errorf("over its rate limit of %d runs per %v in this session", l.rate.Calls, l.rate.Per)
		}
		b.tokens--
	}
	b.lastRun = now
	return nil
}

func (l *limiter) prune(now time.Time) {
	for k, b := range l.sessions {
		full := l.rate.Calls == 0 || b.tokens+now.Sub(b.last).Seconds()*float64(l.rate.Calls)/l.rate.Per.Seconds() >= float64(l.rate.Calls)
		if full && now.Sub(b.lastRun) >= l.cooldown {
			delete(l.sessions, k)
		}
	}
}

// slots caps how many processes of one hook run at once.
type slots chan struct{}

// acquire waits for a free slot until ctx is done.
func (s slots) acquire(ctx context.Context) bool {
	select {
	case s <- struct{}{}:
		return true
	default:
	}
	select {
	case s <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s slots) release() { <-s }
