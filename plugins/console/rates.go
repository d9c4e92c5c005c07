package console

import (
	"math/bits"
	"slices"
	"sync"
	"time"
)

// The rate charts keep, per hook, buckets buckets over the window (one
// second each for the default 5 minutes), each with the calls, the
// blocks and a histogram of durations in powers of two of microseconds.
const (
	buckets = 300
	bins    = 24 // 1 µs … 2^23 µs (8 s) and over
	// maxSeries caps the hooks charted; the hooks of a server's plans
	// are the operator's, not a peer's, but a server of many apps could
	// have many.
	maxSeries = 512
)

type bucket struct {
	slot    int64 // which bucket of time it holds
	calls   uint32
	blocked uint32
	hist    [bins]uint32
}

type series struct{ b [buckets]bucket }

// rates keeps the per-hook rate window.
type rates struct {
	mu     sync.Mutex
	width  time.Duration
	hooks  map[string]*series
	untold uint64 // calls of hooks past maxSeries
}

func newRates(window time.Duration) *rates {
	return &rates{width: window / buckets, hooks: map[string]*series{}}
}

func (rt *rates) slot(t time.Time) int64 { return t.UnixNano() / int64(rt.width) }

// add counts the hook calls of a finished run.
func (rt *rates) add(l *live, r *record) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for i := range l.steps[:l.n] {
		s := &l.steps[i]
		if s.hook == "" {
			continue
		}
		se := rt.hooks[s.hook]
		if se == nil {
			if len(rt.hooks) >= maxSeries {
				rt.untold++
				continue
			}
			se = new(series)
			rt.hooks[s.hook] = se
		}
		slot := rt.slot(l.start.Add(s.end))
		b := &se.b[slot%buckets]
		if b.slot != slot {
			*b = bucket{slot: slot}
		}
		b.calls++
		if r.Steps[i].Outcome == stepBlocked {
			b.blocked++
		}
		b.hist[bin(s.end-s.at)]++
	}
}

func bin(d time.Duration) int {
	us := uint64(d / time.Microsecond)
	if us == 0 {
		return 0
	}
	return min(bits.Len64(us), bins-1)
}

// binUpper is the upper bound of bin i.
func binUpper(i int) time.Duration { return time.Duration(uint64(1)<<i) * time.Microsecond }

// chart is one hook's rates over the window, for the rates page.
type chart struct {
	Hook     string
	Calls    uint64
	Blocked  uint64
	PerSec   float64
	Blocks   float64
	P50, P99 time.Duration
	// Points are calls per bucket, oldest first; BlockPoints the blocks.
	Points, BlockPoints []uint32
}

// charts returns every hook's chart at now, busiest first.
func (rt *rates) charts(now time.Time) []chart {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	cur := rt.slot(now)
	var out []chart
	for h, se := range rt.hooks {
		c := chart{Hook: h, Points: make([]uint32, buckets), BlockPoints: make([]uint32, buckets)}
		var hist [bins]uint64
		for i := range buckets {
			slot := cur - buckets + 1 + int64(i)
			b := &se.b[((slot%buckets)+buckets)%buckets]
			if b.slot != slot {
				continue
			}
			c.Points[i], c.BlockPoints[i] = b.calls, b.blocked
			c.Calls += uint64(b.calls)
			c.Blocked += uint64(b.blocked)
			for j, n := range b.hist {
				hist[j] += uint64(n)
			}
		}
		if c.Calls == 0 {
			continue
		}
		secs := (rt.width * buckets).Seconds()
		c.PerSec, c.Blocks = float64(c.Calls)/secs, float64(c.Blocked)/secs
		c.P50, c.P99 = quantile(hist, c.Calls, 0.50), quantile(hist, c.Calls, 0.99)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b chart) int {
		if a.Calls != b.Calls {
			if a.Calls > b.Calls {
				return -1
			}
			return 1
		}
		if a.Hook < b.Hook {
			return -1
		}
		return 1
	})
	return out
}

// quantile returns the upper bound of the bin holding the q-th of n.
func quantile(hist [bins]uint64, n uint64, q float64) time.Duration {
	rank := uint64(q*float64(n) + 0.5)
	rank = max(rank, 1)
	var seen uint64
	for i, c := range hist {
		seen += c
		if seen >= rank {
			return binUpper(i)
		}
	}
	return binUpper(bins - 1)
}
