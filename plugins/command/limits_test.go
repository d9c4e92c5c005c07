package command

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Each session has its own budget: sessions told apart by their transport
// ID or, without one, by the session itself; requests with neither share
// one budget.
func TestLimiterPerSession(t *testing.T) {
	a, b := new(mcp.ServerSession), new(mcp.ServerSession)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	steps := []struct {
		name string
		r    *flows.Request
		at   time.Duration
		want string // the error's start, "" for a run
	}{
		{"a runs", &flows.Request{Session: a}, 0, ""},
		{"a is over its budget", &flows.Request{Session: a}, time.Second, "over its rate limit"},
		{"b has its own", &flows.Request{Session: b}, time.Second, ""},
		{"ID x on session a has its own", &flows.Request{SessionID: "x", Session: a}, time.Second, ""},
		{"ID x again, on session b", &flows.Request{SessionID: "x", Session: b}, time.Second, "over its rate limit"},
		{"no session", &flows.Request{}, time.Second, ""},
		{"no session again", &flows.Request{}, time.Second, "over its rate limit"},
		{"a refilled", &flows.Request{Session: a}, time.Hour, ""},
	}
	l := newLimiter(settings.RateLimit{Calls: 1, Per: time.Hour}, 0)
	for _, s := range steps {
		err := l.take(s.r, now.Add(s.at))
		if got := errText(err); s.want == "" && err != nil || s.want != "" && !strings.HasPrefix(got, s.want) {
			t.Errorf("%s: take = %q, want %q", s.name, got, s.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The budget of a session without a transport ID goes with the session:
// once the session is unreachable the limiter holds nothing of it, while
// a live session keeps its budget.
func TestLimiterForgetsCollectedSessions(t *testing.T) {
	for _, c := range []struct {
		name     string
		rate     settings.RateLimit
		cooldown time.Duration
	}{
		{"rate limit", settings.RateLimit{Calls: 1, Per: time.Hour}, 0},
		{"cooldown", settings.RateLimit{}, time.Hour},
	} {
		l := newLimiter(c.rate, c.cooldown)
		now := time.Now()
		live := new(mcp.ServerSession)
		if err := l.take(&flows.Request{Session: live}, now); err != nil {
			t.Fatal(err)
		}
		held := make([]weak.Pointer[bucket], 32)
		func() {
			for i := range held {
				ss := new(mcp.ServerSession)
				if err := l.take(&flows.Request{Session: ss}, now); err != nil {
					t.Fatal(err)
				}
				b, ok := l.local.Lookup(ss)
				if !ok {
					t.Fatal("no bucket for a session that ran")
				}
				held[i] = weak.Make(b)
			}
		}()
		waitFreed(t, held)
		if err := l.take(&flows.Request{Session: live}, now); err == nil {
			t.Errorf("%s: the live session's budget was forgotten", c.name)
		}
		runtime.KeepAlive(live)
	}
}

// waitFreed runs the garbage collector until every pointer of ps is nil,
// for at most a bounded number of cycles.
func waitFreed[T any](t *testing.T, ps []weak.Pointer[T]) {
	t.Helper()
	for range 500 {
		runtime.GC()
		n := 0
		for _, p := range ps {
			if p.Value() != nil {
				n++
			}
		}
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the buckets of unreachable sessions are still held after 500 collections")
}
