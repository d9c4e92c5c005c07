package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const (
	shardCount = 64
	// sweepEvery is how many Takes a shard serves between two sweeps of its
	// idle buckets.
	sweepEvery = 1024
	// DefaultMaxIdle is how long a bucket nobody uses is kept by default.
	DefaultMaxIdle = 24 * time.Hour
)

// MemoryOptions configure [NewMemory]. The zero value is ready to use.
type MemoryOptions struct {
	// Now is the clock; nil uses the monotonic time.Now. Tests pass a fake
	// clock.
	Now func() time.Time
	// MaxIdle is how long a bucket nobody uses is kept; it then starts
	// full again. Buckets that have refilled completely are dropped sooner,
	// since a full bucket and a new one are the same. 0 means
	// DefaultMaxIdle. It matters only for budgets that refill slowly or not
	// at all (Rate 0).
	MaxIdle time.Duration
}

// Memory is the in-process Backend. It is exact under concurrency: its
// buckets live in 64 shards, each behind its own mutex, and a Take locks
// just the shards of its buckets, in index order, so calls for different
// sessions and users rarely wait for each other and never for a global
// lock. Budgets are per process: use [Redis] to share them between server
// instances.
type Memory struct {
	shards  [shardCount]shard
	seed    maphash.Seed
	now     func() time.Duration
	maxIdle time.Duration
}

type shard struct {
	mu      sync.Mutex
	buckets map[string]*bucketState
	ops     uint32
	_       [40]byte // keep shards on separate cache lines
}

type bucketState struct {
	tokens float64
	last   time.Duration // on m.now's clock
	limit  Limit
}

// NewMemory returns an empty in-memory backend. opts may be nil.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{seed: maphash.MakeSeed(), maxIdle: DefaultMaxIdle}
	if opts != nil && opts.MaxIdle > 0 {
		m.maxIdle = opts.MaxIdle
	}
	if opts != nil && opts.Now != nil {
		clock := opts.Now
		start := clock()
		m.now = func() time.Duration { return clock().Sub(start) }
	} else {
		start := time.Now()
		m.now = func() time.Duration { return time.Since(start) }
	}
	for i := range m.shards {
		m.shards[i].buckets = map[string]*bucketState{}
	}
	return m
}

// Take implements Backend. The keys of buckets must be distinct.
func (m *Memory) Take(ctx context.Context, buckets []Bucket) (Decision, error) {
	if len(buckets) == 0 {
		return Decision{Allowed: true}, nil
	}
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	var shardBuf, orderBuf [4]int
	var stateBuf [4]*bucketState
	idx, order, states := shardBuf[:0], orderBuf[:0], stateBuf[:0]
	for _, b := range buckets {
		i := int(maphash.String(m.seed, b.Key) % shardCount)
		idx = append(idx, i)
		// order: the distinct shard indexes, sorted (insertion sort: n is tiny).
		j := len(order)
		dup := false
		for k, o := range order {
			if o == i {
				dup = true
				break
			}
			if o > i {
				j = k
				break
			}
		}
		if !dup {
			order = append(order, 0)
			copy(order[j+1:], order[j:])
			order[j] = i
		}
	}
	for _, i := range order {
		m.shards[i].mu.Lock()
	}
	now := m.now()
	d := Decision{Allowed: true}
	for n, b := range buckets {
		sh := &m.shards[idx[n]]
		s := sh.buckets[b.Key]
		if s == nil {
			s = &bucketState{tokens: float64(b.Limit.Burst), last: now}
			sh.buckets[b.Key] = s
		} else {
			s.tokens = refill(s.tokens, now-s.last, b.Limit)
			s.last = now
		}
		s.limit = b.Limit
		states = append(states, s)
		if s.tokens < 1 {
			if d.Allowed {
				d = Decision{Blocked: n}
			}
			d.RetryAfter = max(d.RetryAfter, wait(s.tokens, b.Limit))
		}
	}
	if d.Allowed {
		for _, s := range states {
			s.tokens--
		}
	}
	for k := len(order) - 1; k >= 0; k-- {
		sh := &m.shards[order[k]]
		sh.ops++
		if sh.ops%sweepEvery == 0 {
			m.sweep(sh, now)
		}
		sh.mu.Unlock()
	}
	return d, nil
}

// sweep drops the buckets of sh that are full again or idle too long. The
// caller holds sh.mu.
func (m *Memory) sweep(sh *shard, now time.Duration) {
	for k, s := range sh.buckets {
		idle := now - s.last
		if idle > m.maxIdle || refill(s.tokens, idle, s.limit) >= float64(s.limit.Burst) {
			delete(sh.buckets, k)
		}
	}
}

// Len returns how many buckets the backend holds, for tests and metrics.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.buckets)
		sh.mu.Unlock()
	}
	return n
}
