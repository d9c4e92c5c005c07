package upstream

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dropLogEvery is how often, at most, the gateway logs that it still
// drops notifications to a client session.
const dropLogEvery = 10 * time.Second

// Queues holds, per client session, the notifications of upstreams on
// their way to it (progress, log messages, completions of URL-mode
// elicitations), sent in order by one goroutine per session that has
// some. An upstream's notification is handled by the MCP SDK one at a
// time, after the ones before it, and queued by the SDK without bound
// while a handler waits: sending a notification to a client that does
// not read would hold every later one of that upstream session, which
// could grow without end. Queueing here takes the handler no time, and
// the queue of a session holds at most limit entries: a new one drops
// the oldest progress notification or log message (a completion only
// when nothing else is queued), counted. One Queues serves every
// upstream of a gateway; it is safe for concurrent use.
type Queues struct {
	limit int
	log   *slog.Logger

	mu    sync.Mutex
	cond  *sync.Cond // on mu: broadcast when a queue sent or dropped an entry
	boxes map[*mcp.ServerSession]*outbox
}

// outbox is the queue of one client session; it exists while it holds
// entries or sends one.
type outbox struct {
	ss    *mcp.ServerSession
	items []Item
	// pushed counts the entries queued, done those sent or dropped:
	// flushed waits for done to reach pushed.
	pushed, done uint64
	// dropped counts the entries dropped since the queue was last empty;
	// loggedAt is when that was last logged.
	dropped  uint64
	loggedAt time.Time
}

// Item is one notification to a client session.
type Item struct {
	// Essential marks a completion of a URL-mode elicitation, dropped
	// only when nothing else is queued.
	Essential bool
	// Dropped counts the notifications of the upstream whose notification
	// it is that were dropped.
	Dropped *atomic.Uint64
	// Send sends it.
	Send func()
}

// NewQueues returns the queues of a gateway, each holding at most limit
// entries, logging to log what they drop.
func NewQueues(limit int, log *slog.Logger) *Queues {
	q := &Queues{limit: limit, log: log, boxes: map[*mcp.ServerSession]*outbox{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Push queues it for ss, dropping the oldest entry that may be dropped
// when the queue is full.
func (q *Queues) Push(ss *mcp.ServerSession, it Item) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.boxes[ss]
	if b == nil {
		b = &outbox{ss: ss}
		q.boxes[ss] = b
		Go(q.log, "sending notifications to a client session", func() { q.run(b) })
	}
	if len(b.items) >= q.limit {
		q.dropOne(b)
	}
	b.items = append(b.items, it)
	b.pushed++
}

// dropOne drops b's oldest entry that is not essential, or its oldest
// when all are; it is called with q.mu held.
func (q *Queues) dropOne(b *outbox) {
	i := 0
	for i < len(b.items) && b.items[i].Essential {
		i++
	}
	if i == len(b.items) {
		i = 0
	}
	b.items[i].Dropped.Add(1)
	if i == 0 {
		b.items[0] = Item{}
		b.items = b.items[1:]
	} else {
		b.items = append(b.items[:i], b.items[i+1:]...)
	}
	b.done++
	b.dropped++
	switch now := time.Now(); {
	case b.dropped == 1:
		b.loggedAt = now
		q.log.Warn("gateway: a client session reads too slowly: dropping its oldest progress notifications and log messages",
			slog.String("session", b.ss.ID()), slog.Int("queue_limit", q.limit))
	case now.Sub(b.loggedAt) >= dropLogEvery:
		b.loggedAt = now
		q.log.Warn("gateway: still dropping notifications to a slow client session",
			slog.String("session", b.ss.ID()), slog.Uint64("dropped", b.dropped))
	}
	q.cond.Broadcast()
}

// run sends b's entries in order until b is empty, then forgets b.
func (q *Queues) run(b *outbox) {
	q.mu.Lock()
	for len(b.items) > 0 {
		it := b.items[0]
		b.items[0] = Item{}
		b.items = b.items[1:]
		q.mu.Unlock()
		it.Send()
		q.mu.Lock()
		b.done++
		q.cond.Broadcast()
	}
	delete(q.boxes, b.ss)
	if b.dropped > 0 {
		q.log.Warn("gateway: dropped notifications to a slow client session",
			slog.String("session", b.ss.ID()), slog.Uint64("dropped", b.dropped))
	}
	q.mu.Unlock()
}

// Len counts the entries queued for every client session, for a
// metric read when it is scraped: it takes the queues' lock, which a
// call's path does not.
func (q *Queues) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, b := range q.boxes {
		n += len(b.items)
	}
	return n
}

// Flushed waits until what was queued for ss so far has been sent (or
// dropped), or until deadline.
func (q *Queues) Flushed(ss *mcp.ServerSession, deadline time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.boxes[ss]
	if b == nil || b.done >= b.pushed {
		return
	}
	target := b.pushed
	timer := time.AfterFunc(time.Until(deadline), func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer timer.Stop()
	for b.done < target && time.Now().Before(deadline) {
		q.cond.Wait()
	}
}
