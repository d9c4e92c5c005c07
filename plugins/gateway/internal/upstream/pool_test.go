package upstream_test

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// fake is an upstream session of a pool's tests: it ends once closed.
type fake struct {
	name           string
	broken, closed atomic.Bool
	once           sync.Once
	end            chan struct{}
}

func (f *fake) Broken() bool { return f.broken.Load() }

func (f *fake) ended() chan struct{} {
	f.once.Do(func() { f.end = make(chan struct{}) })
	return f.end
}

func (f *fake) Wait() error {
	<-f.ended()
	return nil
}

func (f *fake) Close() error {
	if f.closed.CompareAndSwap(false, true) {
		close(f.ended())
	}
	return nil
}

type pool = upstream.Pool[string, *fake]

// open takes the slot of key and opens it with a fake of that name.
func open(t *testing.T, p *pool, key string, client bool) *fake {
	t.Helper()
	s, seq, ok := p.Take(key, client)
	if !ok || seq == 0 {
		t.Fatalf("Take(%q) = seq %d, ok %v; want a new slot", key, seq, ok)
	}
	f := &fake{name: key}
	s.Opened(f, nil)
	return f
}

// TestPoolTake takes slots: one per key, numbered in order, a broken
// session's replaced (and closed), client slots bounded by Max but for
// those forgotten or retired, shared ones not bounded.
func TestPoolTake(t *testing.T) {
	tests := []struct {
		name string
		max  int
		run  func(t *testing.T, p *pool) (key string, client bool)
		// wantSeq is Take's seq for key after run (0: the slot there),
		// wantOK its ok.
		wantSeq uint64
		wantOK  bool
	}{
		{"new", 0, func(*testing.T, *pool) (string, bool) { return "a", true }, 1, true},
		{"taken again", 0, func(t *testing.T, p *pool) (string, bool) { open(t, p, "a", true); return "a", true }, 0, true},
		{"opening", 0, func(t *testing.T, p *pool) (string, bool) { p.Take("a", true); return "a", true }, 0, true},
		{"broken", 0, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "a", true).broken.Store(true)
			return "a", true
		}, 2, true},
		{"failed is not broken", 0, func(t *testing.T, p *pool) (string, bool) {
			s, _, _ := p.Take("a", true)
			s.Opened(nil, errors.New("refused"))
			return "a", true
		}, 0, true},
		{"at the bound", 2, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "a", true)
			p.Take("b", true)
			return "c", true
		}, 0, false},
		{"below the bound", 3, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "a", true)
			p.Take("b", true)
			return "c", true
		}, 3, true},
		{"shared past the bound", 1, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "a", true)
			return "v1", false
		}, 2, true},
		{"shared do not count", 1, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "v1", false)
			return "a", true
		}, 2, true},
		{"no bound", -1, func(t *testing.T, p *pool) (string, bool) {
			open(t, p, "a", true)
			return "b", true
		}, 2, true},
		{"forgotten", 1, func(t *testing.T, p *pool) (string, bool) {
			s, _, _ := p.Take("a", true)
			if !p.Forget("a", s) {
				t.Error("Forget of the slot there = false")
			}
			return "b", true
		}, 2, true},
		{"forgotten once replaced", 1, func(t *testing.T, p *pool) (string, bool) {
			s, _, _ := p.Take("a", true)
			p.Forget("a", s)
			p.Take("a", true)
			if p.Forget("a", s) {
				t.Error("Forget of a replaced slot = true")
			}
			return "b", true
		}, 0, false},
		{"retired", 1, func(t *testing.T, p *pool) (string, bool) {
			f := open(t, p, "a", true)
			p.Busy(f)()
			p.Reap(time.Nanosecond, time.Now().Add(time.Second), func(string) bool { return false })
			return "b", true
		}, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pool{Max: tt.max}
			key, client := tt.run(t, p)
			s, seq, ok := p.Take(key, client)
			if seq != tt.wantSeq || ok != tt.wantOK {
				t.Fatalf("Take(%q) = seq %d, ok %v; want %d, %v", key, seq, ok, tt.wantSeq, tt.wantOK)
			}
			if ok && p.Get(key) != s {
				t.Error("Get does not return the slot Take did")
			}
		})
	}
}

// TestPoolBrokenClosed: the session a slot replaces for being broken is
// closed, and no longer among the pool's.
func TestPoolBrokenClosed(t *testing.T) {
	p := &pool{}
	old := open(t, p, "a", true)
	old.broken.Store(true)
	s, _, _ := p.Take("a", true)
	s.Opened(&fake{name: "new"}, nil)
	deadline := time.Now().Add(5 * time.Second)
	for !old.closed.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !old.closed.Load() {
		t.Error("the broken session was not closed")
	}
	if got := names(p.Conns()); !slices.Equal(got, []string{"new"}) {
		t.Errorf("Conns = %v, want [new]", got)
	}
}

// TestPoolReap retires the client sessions idle for the timeout, but
// those kept, in flight or shared; a retired one stays among the pool's
// sessions and is closed at the next Reap unless a request is in flight
// through it.
func TestPoolReap(t *testing.T) {
	const d = time.Minute
	tests := []struct {
		name string
		// run opens "a" (and more), and makes requests through it.
		run         func(t *testing.T, p *pool) (end func())
		keep        bool
		wantRetired bool
		wantClosed  bool
	}{
		{"idle", func(t *testing.T, p *pool) func() { p.Busy(open(t, p, "a", true))(); return nil }, false, true, true},
		{"kept", func(t *testing.T, p *pool) func() { p.Busy(open(t, p, "a", true))(); return nil }, true, false, false},
		{"served none", func(t *testing.T, p *pool) func() { open(t, p, "a", true); return nil }, false, false, false},
		{"in flight", func(t *testing.T, p *pool) func() { return p.Busy(open(t, p, "a", true)) }, false, false, false},
		{"shared", func(t *testing.T, p *pool) func() { p.Busy(open(t, p, "a", false))(); return nil }, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pool{}
			end := tt.run(t, p)
			f, _ := p.Get("a").Conn()
			now := time.Now().Add(d)
			if closing := p.Reap(d, now, func(string) bool { return tt.keep }); len(closing) > 0 {
				t.Fatalf("the first Reap closes %v", names(closing))
			}
			if retired := p.Get("a") == nil; retired != tt.wantRetired {
				t.Fatalf("retired %v, want %v", retired, tt.wantRetired)
			}
			if got := names(p.Conns()); !slices.Equal(got, []string{"a"}) {
				t.Errorf("Conns = %v, want [a]", got)
			}
			closing := p.Reap(d, now.Add(d), func(string) bool { return tt.keep })
			if closed := slices.Contains(closing, f); closed != tt.wantClosed {
				t.Errorf("closed at the second Reap %v, want %v", closed, tt.wantClosed)
			}
			if end != nil {
				end()
			}
		})
	}
}

// TestPoolReapInFlight: a retired session that got a request just
// before it was retired is not closed while the request is in flight.
func TestPoolReapInFlight(t *testing.T) {
	p := &pool{}
	f := open(t, p, "a", true)
	p.Busy(f)()
	now := time.Now().Add(time.Minute)
	never := func(string) bool { return false }
	p.Reap(time.Second, now, never)
	end := p.Busy(f)
	if closing := p.Reap(time.Second, now.Add(time.Minute), never); len(closing) > 0 {
		t.Fatalf("closes %v with a request in flight", names(closing))
	}
	end()
	if closing := p.Reap(time.Second, time.Now().Add(time.Minute), never); !slices.Contains(closing, f) {
		t.Error("not closed once its request ended")
	}
	if closing := p.Reap(time.Second, time.Now().Add(time.Hour), never); len(closing) > 0 {
		t.Errorf("closed twice: %v", names(closing))
	}
}

// TestPoolDrop empties the pool: its open sessions, retired ones and
// one still opening are closed, the last once opened; the group waits
// for it.
func TestPoolDrop(t *testing.T) {
	p := &pool{Max: 2}
	a := open(t, p, "a", true)
	retired := open(t, p, "r", true)
	p.Busy(retired)()
	p.Reap(time.Nanosecond, time.Now().Add(time.Second), func(k string) bool { return k != "r" })
	opening, _, _ := p.Take("o", true)
	wg := p.Drop()
	if p.Get("a") != nil || len(p.Conns()) != 0 {
		t.Fatal("the pool holds sessions after Drop")
	}
	o := &fake{name: "o"}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		t.Fatal("Drop's group is done before the opening session opened")
	case <-time.After(20 * time.Millisecond):
	}
	opening.Opened(o, nil)
	<-done
	for _, f := range []*fake{a, retired, o} {
		if !f.closed.Load() {
			t.Errorf("%s not closed", f.name)
		}
	}
	if _, seq, ok := p.Take("b", true); !ok || seq == 0 {
		t.Error("no new slot after Drop")
	}
}

// TestPoolConcurrentTake has many requests of one client session take
// its slot at once: one of them opens it, every one gets that slot.
func TestPoolConcurrentTake(t *testing.T) {
	p := &pool{Max: 1}
	var wg sync.WaitGroup
	var opened atomic.Int32
	slots := make([]*upstream.Slot[*fake], 50)
	for i := range slots {
		wg.Go(func() {
			s, seq, ok := p.Take("a", true)
			if !ok {
				t.Error("refused")
				return
			}
			if seq > 0 {
				opened.Add(1)
				s.Opened(&fake{name: "a"}, nil)
			}
			<-s.Done()
			slots[i] = s
		})
	}
	wg.Wait()
	if n := opened.Load(); n != 1 {
		t.Errorf("%d opened, want 1", n)
	}
	for _, s := range slots {
		if s != slots[0] {
			t.Fatal("two slots for one key")
		}
	}
}

// TestPoolHold holds sessions until they end: the end of the client
// session closes its session, and a session that ends is forgotten,
// unless another took its key meanwhile.
func TestPoolHold(t *testing.T) {
	tests := []struct {
		name string
		// end ends the session f (its client session ends when client
		// is closed).
		end           func(p *pool, f *fake, client chan struct{})
		shared        bool
		wantForgotten bool
	}{
		{"client session ends", func(_ *pool, _ *fake, client chan struct{}) { close(client) }, false, true},
		{"session ends", func(_ *pool, f *fake, _ chan struct{}) { f.Close() }, false, true},
		{"shared ends", func(_ *pool, f *fake, _ chan struct{}) { f.Close() }, true, true},
		{"replaced", func(p *pool, f *fake, _ chan struct{}) {
			p.Forget("a", p.Get("a"))
			p.Take("a", true)
			f.Close()
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pool{}
			f := open(t, p, "a", !tt.shared)
			s := p.Get("a")
			client := make(chan struct{})
			wait := func() error { <-client; return nil }
			if tt.shared {
				wait = nil
			}
			ended := make(chan bool, 1)
			p.Hold("a", s, wait, func(forgotten bool) { ended <- forgotten })
			tt.end(p, f, client)
			select {
			case forgotten := <-ended:
				if forgotten != tt.wantForgotten {
					t.Errorf("forgotten %v, want %v", forgotten, tt.wantForgotten)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("not told the session ended")
			}
			if !f.closed.Load() {
				t.Error("the session is not closed")
			}
			if tt.wantForgotten && p.Get("a") != nil {
				t.Error("the pool still holds the session")
			}
		})
	}
}

func names(cs []*fake) []string {
	var ns []string
	for _, c := range cs {
		ns = append(ns, c.name)
	}
	slices.Sort(ns)
	return ns
}
