package flows

import (
	"runtime"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionState holds one value of type T for each MCP session: what a
// plugin remembers across a session's requests, where a [Key] holds what
// the hooks of one run share. Create it once, for example in a plugin's
// constructor, with [NewSessionState].
//
//	type seen struct {
//		mu    sync.Mutex
//		tools map[string]bool
//	}
//	var sessions = flows.NewSessionState("example.seen", func() *seen { return &seen{} })
//	st := sessions.Get(c.Session())
//
// Memory: a SessionState holds, for each session that [SessionState.Get]
// was called with, the value newValue made, one map entry, one weak
// pointer and one runtime cleanup: about 170 bytes on a 64-bit platform,
// besides the value. It holds the session weakly: once the session is
// unreachable (its connection closed and the SDK let go of it) the garbage
// collector frees it, a cleanup deletes its entry, and the value goes when
// nothing else holds it. A value must therefore not refer to its session,
// directly or through a closure, or neither is ever freed. The entries are
// bounded by the sessions alive at once, which a server bounds (see
// framework.Options.MaxSessions for HTTP); over stateless HTTP, where each
// request is a session of its own, a value lasts until its request's
// session is collected. The cleanups of the sessions it holds keep the
// SessionState itself alive.
//
// Concurrency: a SessionState is safe for use by any number of goroutines.
// newValue runs once per session, even when the session's first requests
// call Get at once; it runs under a lock shared by all sessions, so it
// should be short and must not call Get. The value is shared by all of the
// session's requests, which may run concurrently: a T with mutable fields
// guards them itself (a pointer to a struct with a mutex, as above).
//
// Cost: once a session has its value, Get and [SessionState.Lookup]
// allocate nothing and never wait for a newValue of another session; each
// costs one [weak.Make] and one [sync.Map] load.
type SessionState[T any] struct {
	name     string
	newValue func() T
	m        sync.Map // weak.Pointer[mcp.ServerSession] → T
	create   sync.Mutex
}

// NewSessionState returns a SessionState whose values newValue makes, on
// the first [SessionState.Get] of each session. The name appears in
// [SessionState.String] only. NewSessionState panics if newValue is nil.
func NewSessionState[T any](name string, newValue func() T) *SessionState[T] {
	if newValue == nil {
		panic("flows.NewSessionState(" + name + "): newValue is nil")
	}
	return &SessionState[T]{name: name, newValue: newValue}
}

// String returns the name of s.
func (s *SessionState[T]) String() string { return s.name }

// Get returns the value of session ss, made by newValue on the session's
// first Get. It returns the zero T, and keeps nothing, when ss is nil.
func (s *SessionState[T]) Get(ss *mcp.ServerSession) T {
	if ss == nil {
		var zero T
		return zero
	}
	wp := weak.Make(ss)
	if v, ok := s.m.Load(wp); ok {
		return v.(T)
	}
	s.create.Lock()
	defer s.create.Unlock()
	if v, ok := s.m.Load(wp); ok {
		return v.(T)
	}
	v := s.newValue()
	s.m.Store(wp, v)
	runtime.AddCleanup(ss, s.forget, wp)
	return v
}

// Lookup returns the value of session ss and true, or the zero T and false
// when ss is nil or has no value yet; it makes none.
func (s *SessionState[T]) Lookup(ss *mcp.ServerSession) (T, bool) {
	if ss != nil {
		if v, ok := s.m.Load(weak.Make(ss)); ok {
			return v.(T), true
		}
	}
	var zero T
	return zero, false
}

// forget drops the entry of a session that was garbage collected.
func (s *SessionState[T]) forget(wp weak.Pointer[mcp.ServerSession]) { s.m.Delete(wp) }
