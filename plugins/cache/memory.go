package cache

import (
	"container/list"
	"context"
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

// Memory is an in-process [Backend]: a map with least-recently-used
// eviction and per-entry expiry, guarded by one mutex.
type Memory struct {
	mu  sync.Mutex
	max int
	now func() time.Time
	ll  list.List // of *memEntry, most recently used first
	m   map[string]*list.Element
}

type memEntry struct {
	key string
	val []byte
	exp time.Time
}

// NewMemory returns an empty Memory backend. opts may be nil.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{max: DefaultMaxEntries, now: time.Now, m: map[string]*list.Element{}}
	if opts != nil {
		if opts.MaxEntries > 0 {
			m.max = opts.MaxEntries
		}
		if opts.Now != nil {
			m.now = opts.Now
		}
	}
	return m
}

// Get implements [Backend]. An expired entry is removed.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el := m.m[key]
	if el == nil {
		return nil, false, nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.exp) {
		m.ll.Remove(el)
		delete(m.m, key)
		return nil, false, nil
	}
	m.ll.MoveToFront(el)
	return e.val, true, nil
}

// Set implements [Backend], evicting the least recently used entry when
// the cache is full.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	exp := m.now().Add(ttl)
	if el := m.m[key]; el != nil {
		e := el.Value.(*memEntry)
		e.val, e.exp = value, exp
		m.ll.MoveToFront(el)
		return nil
	}
	m.m[key] = m.ll.PushFront(&memEntry{key: key, val: value, exp: exp})
	for m.ll.Len() > m.max {
		old := m.ll.Back()
		m.ll.Remove(old)
		delete(m.m, old.Value.(*memEntry).key)
	}
	return nil
}

// Len returns the number of entries, expired ones included until they are
// looked up or evicted.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ll.Len()
}

var _ Backend = (*Memory)(nil)
