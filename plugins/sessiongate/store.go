package sessiongate

import (
	"context"
	"sync"
	"time"
)

// DefaultIdle is how long a store keeps the state of a session it has not
// seen, when its options set no Idle.
const DefaultIdle = 24 * time.Hour

// Store keeps each session's state. Implementations must be safe for
// concurrent use, and Advance atomic: under any interleaving a state only
// moves forward, and exactly one Advance sees each step.
type Store interface {
	// Load returns the state of the session key, Uninitialized for a
	// session it does not know (or has forgotten).
	Load(ctx context.Context, key string) (State, error)
	// Advance moves the session key to state to, unless it is there or
	// past it already, and returns the state it was in.
	Advance(ctx context.Context, key string, to State) (from State, err error)
}

// Peeker is a Store that answers without I/O; [Config.Unlist] needs one.
type Peeker interface {
	// Peek returns the state of the session key.
	Peek(key string) State
}

// Memory is the in-process Store: exact, but each server process has its
// own. Use [Redis] for stateless HTTP behind several instances, or to keep
// sessions' states across restarts.
type Memory struct {
	idle time.Duration
	now  func() time.Time

	mu       sync.Mutex
	sessions map[string]*memEntry
	swept    int // len(sessions) after the last sweep
}

type memEntry struct {
	state State
	seen  time.Time
}

// MemoryOptions configure [NewMemory]. The zero value is ready to use.
type MemoryOptions struct {
	// Idle is how long the state of a session that makes no call is kept;
	// 0 means DefaultIdle.
	Idle time.Duration
	// Now is the clock; nil uses time.Now.
	Now func() time.Time
}

// NewMemory returns an empty in-memory store. opts may be nil.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{idle: DefaultIdle, now: time.Now, sessions: map[string]*memEntry{}}
	if opts != nil && opts.Idle > 0 {
		m.idle = opts.Idle
	}
	if opts != nil && opts.Now != nil {
		m.now = opts.Now
	}
	return m
}

// Load returns the session's state.
func (m *Memory) Load(_ context.Context, key string) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get(key, true), nil
}

// Peek returns the session's state, as Load does.
func (m *Memory) Peek(key string) State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get(key, false)
}

// Advance moves the session forward to to.
func (m *Memory) Advance(_ context.Context, key string, to State) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from := m.get(key, true)
	if to > from {
		m.sessions[key] = &memEntry{state: to, seen: m.now()}
		m.sweep()
	}
	return from, nil
}

// Len returns the number of sessions the store knows.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// get returns the state of key, forgetting it when it has been idle too
// long; touch marks it seen. Callers hold mu.
func (m *Memory) get(key string, touch bool) State {
	e := m.sessions[key]
	if e == nil {
		return Uninitialized
	}
	now := m.now()
	if now.Sub(e.seen) > m.idle {
		delete(m.sessions, key)
		return Uninitialized
	}
	if touch {
		e.seen = now
	}
	return e.state
}

// sweep drops idle sessions once the map has doubled since the last
// sweep, so that it costs O(1) per write on average. Callers hold mu.
func (m *Memory) sweep() {
	if len(m.sessions) < 2*max(m.swept, 512) {
		return
	}
	now := m.now()
	for k, e := range m.sessions {
		if now.Sub(e.seen) > m.idle {
			delete(m.sessions, k)
		}
	}
	m.swept = len(m.sessions)
}
