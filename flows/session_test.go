package flows_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// sessionCounter is a session's test value. Its padding keeps it out of
// the runtime's tiny allocator (objects under 16 bytes without pointers
// share a block, and a weak pointer to one stays valid while any object of
// its block lives), so that TestSessionStateFreedWithSession sees each
// value freed on its own. The race detector turns the tiny allocator off,
// which hid this.
type sessionCounter struct {
	n int
	_ [16]byte
}

// counting returns a SessionState of *sessionCounter and the number of
// values it has made.
func counting() (*flows.SessionState[*sessionCounter], *atomic.Int64) {
	return countingSlowly(0)
}

// countingSlowly is counting with a newValue that takes at least d, to
// widen the window in which concurrent first Gets overlap.
func countingSlowly(d time.Duration) (*flows.SessionState[*sessionCounter], *atomic.Int64) {
	var made atomic.Int64
	return flows.NewSessionState("test.counter", func() *sessionCounter {
		made.Add(1)
		if d > 0 {
			time.Sleep(d)
		}
		return &sessionCounter{}
	}), &made
}

// Each session has its own value, made on its first Get and returned by
// every later Get and Lookup; Lookup makes none, and a nil session has none.
func TestSessionStatePerSession(t *testing.T) {
	a, b := new(mcp.ServerSession), new(mcp.ServerSession)
	type step struct {
		name   string
		do     func(s *flows.SessionState[*sessionCounter]) *sessionCounter
		wantN  int // the counter the step sees, -1 for none
		wantOK bool
		made   int64
	}
	get := func(ss *mcp.ServerSession) func(s *flows.SessionState[*sessionCounter]) *sessionCounter {
		return func(s *flows.SessionState[*sessionCounter]) *sessionCounter {
			v := s.Get(ss)
			if v != nil {
				v.n++
			}
			return v
		}
	}
	lookup := func(ss *mcp.ServerSession) func(s *flows.SessionState[*sessionCounter]) *sessionCounter {
		return func(s *flows.SessionState[*sessionCounter]) *sessionCounter {
			v, ok := s.Lookup(ss)
			if ok != (v != nil) {
				t.Errorf("Lookup = %v, %v", v, ok)
			}
			return v
		}
	}
	steps := []step{
		{"lookup a before any get", lookup(a), -1, false, 0},
		{"get a", get(a), 1, true, 1},
		{"get a again", get(a), 2, true, 1},
		{"lookup a", lookup(a), 2, true, 1},
		{"lookup b: a's value is not b's", lookup(b), -1, false, 1},
		{"get b", get(b), 1, true, 2},
		{"get a: b did not touch it", get(a), 3, true, 2},
		{"get nil", get(nil), -1, false, 2},
		{"lookup nil", lookup(nil), -1, false, 2},
	}
	s, made := counting()
	for _, st := range steps {
		v := st.do(s)
		got := -1
		if v != nil {
			got = v.n
		}
		if got != st.wantN || (v != nil) != st.wantOK || made.Load() != st.made {
			t.Errorf("%s: counter %d (value %v), %d made; want %d (value %v), %d made", st.name, got, v != nil, made.Load(), st.wantN, st.wantOK, st.made)
		}
	}
	other, _ := counting()
	if _, ok := other.Lookup(a); ok {
		t.Error("a second SessionState sees the first one's value")
	}
	if got := s.String(); got != "test.counter" {
		t.Errorf("String() = %q", got)
	}
}

// Values that are not pointers are kept and returned as made.
func TestSessionStateValues(t *testing.T) {
	seq := 0
	s := flows.NewSessionState("test.key", func() string { seq++; return "k" + string(rune('0'+seq)) })
	a, b := new(mcp.ServerSession), new(mcp.ServerSession)
	for _, c := range []struct {
		ss   *mcp.ServerSession
		want string
	}{{a, "k1"}, {b, "k2"}, {a, "k1"}, {nil, ""}, {b, "k2"}} {
		if got := s.Get(c.ss); got != c.want {
			t.Errorf("Get = %q, want %q", got, c.want)
		}
	}
}

func TestNewSessionStateNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSessionState with a nil newValue did not panic")
		}
	}()
	flows.NewSessionState[int]("test.nil", nil)
}

// A session's value is let go once the session is unreachable, and the
// values of sessions still alive are kept.
func TestSessionStateFreedWithSession(t *testing.T) {
	for _, n := range []int{1, 64} {
		s, _ := counting()
		kept := new(mcp.ServerSession)
		keptValue := s.Get(kept)
		keptValue.n = 7
		gone := make([]weak.Pointer[sessionCounter], n)
		func() {
			for i := range gone {
				gone[i] = weak.Make(s.Get(new(mcp.ServerSession)))
			}
		}()
		keptValue = nil
		waitFreed(t, gone)
		if v, ok := s.Lookup(kept); !ok || v.n != 7 {
			t.Errorf("n=%d: the live session's value is %v, %v", n, v, ok)
		}
		runtime.KeepAlive(kept)
	}
}

// waitFreed runs the garbage collector until every pointer of ps is nil,
// for at most a bounded number of cycles: cleanups run on their own
// goroutine after the cycle that found their object unreachable.
func waitFreed[T any](t *testing.T, ps []weak.Pointer[T]) {
	t.Helper()
	for range 500 {
		runtime.GC()
		live := 0
		for _, p := range ps {
			if p.Value() != nil {
				live++
			}
		}
		if live == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("values of unreachable sessions are still held after 500 collections")
}

// Concurrent first Gets of one session make exactly one value, which all
// of them return; sessions raced at once each get their own.
func TestSessionStateConcurrentGet(t *testing.T) {
	for _, c := range []struct{ sessions, callers int }{{1, 16}, {8, 8}} {
		s, made := countingSlowly(time.Millisecond)
		sessions := make([]*mcp.ServerSession, c.sessions)
		for i := range sessions {
			sessions[i] = new(mcp.ServerSession)
		}
		got := make([][]*sessionCounter, c.sessions)
		for i := range got {
			got[i] = make([]*sessionCounter, c.callers)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, ss := range sessions {
			for j := range c.callers {
				wg.Go(func() {
					<-start
					got[i][j] = s.Get(ss)
				})
			}
		}
		close(start)
		wg.Wait()
		if made.Load() != int64(c.sessions) {
			t.Errorf("%d sessions × %d callers: %d values made, want %d", c.sessions, c.callers, made.Load(), c.sessions)
		}
		seen := map[*sessionCounter]bool{}
		for i := range got {
			for _, v := range got[i] {
				if v == nil || v != got[i][0] {
					t.Fatalf("session %d: callers got different values", i)
				}
			}
			if seen[got[i][0]] {
				t.Fatalf("session %d shares another session's value", i)
			}
			seen[got[i][0]] = true
		}
	}
}

// After a session's first Get, Get and Lookup allocate nothing.
func TestSessionStateHitAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	s, _ := counting()
	ss := new(mcp.ServerSession)
	s.Get(ss)
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"Get", func() { _ = s.Get(ss) }},
		{"Lookup", func() { _, _ = s.Lookup(ss) }},
		{"Lookup nil", func() { _, _ = s.Lookup(nil) }},
	} {
		if n := testing.AllocsPerRun(100, c.fn); n != 0 {
			t.Errorf("%s: %v allocs, want 0", c.name, n)
		}
	}
}

func BenchmarkSessionStateGet(b *testing.B) {
	s, _ := counting()
	ss := new(mcp.ServerSession)
	s.Get(ss)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = s.Get(ss)
		}
	})
}
