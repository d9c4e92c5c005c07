package cache

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Backend stores cached results. Values are opaque bytes that the plugin
// never modifies after Set; a backend must not modify them either, and may
// return the same slice to several callers. A Backend is used by
// concurrent calls. Errors are treated as misses and never fail a call.
type Backend interface {
	// Get returns the value stored under key, if it has not expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// MemoryOptions configures a [Memory] backend. The zero value is usable.
type MemoryOptions struct {
	// MaxEntries bounds the number of entries (default 1024); the least
	// recently used entry is evicted to make room.
	MaxEntries int
	// Now is the clock that expires entries; nil uses time.Now.
	Now func() time.Time
}

// Memory is an in-process [Backend]: least-recently-used eviction and
// per-entry expiry, guarded by one mutex. Its entries live in one slice
// linked by index and are found through a map from a hash of the key to
// the entry, which holds no pointers: the collector marks two objects per
// entry (the key and the value) and scans neither the map nor a list.
// Two keys with the same 64-bit hash share an entry: the later Set evicts
// the earlier key, which then misses, as an evicted key does.
type Memory struct {
	mu    sync.Mutex
	max   int
	now   func() time.Time
	start time.Time // expiries are durations since start (monotonic)
	seed  maphash.Seed
	index map[uint64]int32 // hash of the key → its slot
	slots []memSlot
	// head and tail are the most and least recently used slots, free the
	// first unused one (linked by next); -1 for none.
	head, tail, free int32
	n                int
}

// memSlot is one entry, or an unused slot on the free list.
type memSlot struct {
	key        string
	val        []byte
	hash       uint64
	exp        time.Duration // since Memory.start
	prev, next int32
}

// NewMemory returns an empty Memory backend. opts may be nil.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{max: DefaultMaxEntries, now: time.Now, seed: maphash.MakeSeed(), head: -1, tail: -1, free: -1}
	if opts != nil {
		if opts.MaxEntries > 0 {
			m.max = opts.MaxEntries
		}
		if opts.Now != nil {
			m.now = opts.Now
		}
	}
	m.start = m.now()
	m.index = make(map[uint64]int32, min(m.max, 1<<16))
	return m
}

// Get implements [Backend]. An expired entry is removed.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	h := maphash.String(m.seed, key)
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.index[h]
	if !ok || m.slots[i].key != key {
		return nil, false, nil
	}
	s := &m.slots[i]
	if m.now().Sub(m.start) >= s.exp {
		m.remove(i)
		return nil, false, nil
	}
	m.unlink(i)
	m.pushFront(i)
	return s.val, true, nil
}

// Set implements [Backend], evicting the least recently used entry when
// the cache is full.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	h := maphash.String(m.seed, key)
	m.mu.Lock()
	defer m.mu.Unlock()
	exp := m.now().Sub(m.start) + ttl
	if i, ok := m.index[h]; ok {
		s := &m.slots[i]
		s.key, s.val, s.exp = key, value, exp
		m.unlink(i)
		m.pushFront(i)
		return nil
	}
	if m.n >= m.max {
		m.remove(m.tail)
	}
	i := m.free
	if i >= 0 {
		m.free = m.slots[i].next
	} else {
		m.slots = append(m.slots, memSlot{})
		i = int32(len(m.slots) - 1)
	}
	m.slots[i] = memSlot{key: key, val: value, hash: h, exp: exp}
	m.index[h] = i
	m.n++
	m.pushFront(i)
	return nil
}

// remove drops slot i's entry and puts the slot on the free list.
func (m *Memory) remove(i int32) {
	m.unlink(i)
	delete(m.index, m.slots[i].hash)
	m.slots[i] = memSlot{next: m.free}
	m.free = i
	m.n--
}

// unlink takes slot i out of the recency list.
func (m *Memory) unlink(i int32) {
	s := &m.slots[i]
	if s.prev >= 0 {
		m.slots[s.prev].next = s.next
	} else {
		m.head = s.next
	}
	if s.next >= 0 {
		m.slots[s.next].prev = s.prev
	} else {
		m.tail = s.prev
	}
	s.prev, s.next = -1, -1
}

// pushFront makes slot i, unlinked, the most recently used.
func (m *Memory) pushFront(i int32) {
	s := &m.slots[i]
	s.prev, s.next = -1, m.head
	if m.head >= 0 {
		m.slots[m.head].prev = i
	}
	m.head = i
	if m.tail < 0 {
		m.tail = i
	}
}

// Len returns the number of entries, expired ones included until they are
// looked up or evicted.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

var _ Backend = (*Memory)(nil)
