package command

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// limiter enforces a hook's rate limit and cooldown per session. It is off
// the hot path: a hook that is limited starts a process on every run.
// Sessions are told apart by the transport's session ID; a session without
// one (stdio, in-memory) has its bucket in local, which lets go of it when
// the session is garbage collected.
type limiter struct {
	rate     settings.RateLimit
	cooldown time.Duration
	local    *flows.SessionState[*bucket]

	mu   sync.Mutex // guards byID and every bucket
	byID map[string]*bucket
}

// bucket is one session's budget. A bucket whose last is zero is new: its
// first take fills it.
type bucket struct {
	tokens  float64
	last    time.Time // when tokens was computed
	lastRun time.Time
}

// maxTracked bounds how many session IDs a limiter remembers; past it, the
// sessions whose buckets are full again and whose cooldown is over are
// forgotten (they would behave the same as new ones).
const maxTracked = 4096

func newLimiter(rate settings.RateLimit, cooldown time.Duration) *limiter {
	if rate.Calls == 0 && cooldown == 0 {
		return nil
	}
	return &limiter{rate: rate, cooldown: cooldown, byID: map[string]*bucket{},
		local: flows.NewSessionState("command.limit", func() *bucket { return &bucket{} })}
}

// take spends one run of the budget of r's session, or says why it cannot.
func (l *limiter) take(r *flows.Request, now time.Time) error {
	if l == nil {
		return nil
	}
	var b *bucket
	if r.SessionID == "" {
		b = l.local.Get(r.Session) // nil without a session
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b == nil {
		if b = l.byID[r.SessionID]; b == nil {
			if len(l.byID) >= maxTracked {
				l.prune(now)
			}
			b = &bucket{}
			l.byID[r.SessionID] = b
		}
	}
	if b.last.IsZero() {
		b.tokens, b.last = float64(l.rate.Calls), now
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
	for k, b := range l.byID {
		full := l.rate.Calls == 0 || b.tokens+now.Sub(b.last).Seconds()*float64(l.rate.Calls)/l.rate.Per.Seconds() >= float64(l.rate.Calls)
		if full && now.Sub(b.lastRun) >= l.cooldown {
			delete(l.byID, k)
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
