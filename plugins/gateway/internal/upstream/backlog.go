package upstream

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The bounds of a [backlog].
const (
	// maxBacklog bounds the notifications read from an upstream session
	// that the client's handlers have not finished with. The SDK queues
	// what its transport reads without bound, and its queue keeps what it
	// handled until it grows again: a transport that reads faster than
	// the handlers would make it hold a whole flood of notifications.
	maxBacklog = 256
	// drainTimeout bounds one wait of a backlog: [backlog.Read] holding
	// the reading, or the wait of a call's answer for the notifications
	// before it ([backlog.Drain]).
	drainTimeout = time.Second
)

// backlog counts the notifications an upstream session read and those
// the SDK client's handlers finished with. The SDK hands a call's answer
// to the caller as it arrives but queues the notifications before it:
// [backlog.Drain] waits for those, so that a client does not get an
// upstream tool's last progress or log messages after its result. Every
// notification is counted but the cancellations, which the SDK handles
// as they arrive. Its zero value is ready; it is safe for concurrent
// use, and must not be copied.
type backlog struct {
	read, handled atomic.Int64
	// ended is set once reading from the upstream failed: Read holds the
	// reading no more.
	ended atomic.Bool

	mu   sync.Mutex
	cond sync.Cond // on mu (see lock): broadcast when handled grows
}

// counted reports whether a message of method is counted: every
// notification the client's handlers see, the cancellations aside.
func counted(method string) bool {
	return strings.HasPrefix(method, "notifications/") && method != "notifications/cancelled"
}

// Read counts a message of method that the upstream session read, before
// the SDK's handlers see it. Past [maxBacklog] not handled, it holds the
// caller (the reading of the upstream) until the handlers have caught up
// with half of the backlog, for [drainTimeout] at most; after that the
// counts are brought level, so that a handler that waits long (a request
// to the client) slows the reading by drainTimeout per maxBacklog
// notifications at most.
func (b *backlog) Read(method string) {
	if counted(method) && b.read.Add(1)-b.handled.Load() > maxBacklog {
		b.slowDown()
	}
}

func (b *backlog) slowDown() {
	deadline := time.Now().Add(drainTimeout)
	timer := time.AfterFunc(drainTimeout, b.broadcast)
	defer timer.Stop()
	b.lock()
	defer b.mu.Unlock()
	for b.read.Load()-b.handled.Load() > maxBacklog/2 {
		if !time.Now().Before(deadline) || b.ended.Load() {
			for !b.level(b.read.Load()) {
			}
			return
		}
		b.cond.Wait()
	}
}

// Handled counts a message of method that the SDK's handlers finished
// with.
func (b *backlog) Handled(method string) {
	if counted(method) {
		b.handled.Add(1)
		b.broadcast()
	}
}

// End says that reading from the upstream session failed: the session
// is over, and Read holds the reading no more.
func (b *backlog) End() {
	b.ended.Store(true)
	b.broadcast()
}

// Drain waits until the handlers have finished with the notifications
// read so far, or until deadline; after that, the counts are brought
// level, so that one notification the handlers never saw does not make
// every later call wait.
func (b *backlog) Drain(deadline time.Time) {
	target := b.read.Load()
	if b.handled.Load() >= target {
		return
	}
	timer := time.AfterFunc(time.Until(deadline), b.broadcast)
	defer timer.Stop()
	b.lock()
	defer b.mu.Unlock()
	for b.handled.Load() < target {
		if !time.Now().Before(deadline) {
			for !b.level(target) {
			}
			return
		}
		b.cond.Wait()
	}
}

// level raises the handled count to target, unless it is there already;
// it reports false when the count changed meanwhile (try again).
func (b *backlog) level(target int64) bool {
	h := b.handled.Load()
	return h >= target || b.handled.CompareAndSwap(h, target)
}

// lock locks mu, the lock of cond, which it sets: the zero backlog is
// ready.
func (b *backlog) lock() {
	b.mu.Lock()
	b.cond.L = &b.mu
}

func (b *backlog) broadcast() {
	b.lock()
	b.cond.Broadcast()
	b.mu.Unlock()
}
