package console

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// maxSteps is how many hook calls and steps a run keeps for its
// waterfall; the ones after are counted (record.MoreSteps).
const maxSteps = 48

// The outcomes of a run, as the console shows them; the audit plugin's
// words, so that both read alike.
const (
	outcomeOK        = "ok"
	outcomeFailed    = "error"
	outcomeBlocked   = "blocked"
	outcomeAnswered  = "answered_early"
	outcomeRecovered = "recovered"
)

// The outcomes of one hook call or step in a waterfall.
const (
	stepRan      = "ran"
	stepSkipped  = "skipped"
	stepBlocked  = "blocked"
	stepAnswered = "answered early"
	stepFailOpen = "failed open"
	stepTimedOut = "timed out"
	stepFailed   = "failed"
	stepCanceled = "canceled"
	// stepRefused: a finally hook's Respond, which the runner refuses.
	stepRefused = "respond refused"
	// stepRecovered: an onError hook's Respond, which recovers the run.
	stepRecovered = "recovered"
)

// stepOutcome names an observer outcome ([flows.Event]) for the waterfall.
func stepOutcome(o string) string {
	switch o {
	case "ok":
		return stepRan
	case "skip":
		return stepSkipped
	case "abort":
		return stepBlocked
	case "refused":
		return stepRefused
	case "respond":
		return stepAnswered
	case "failed-open":
		return stepFailOpen
	case "timeout":
		return stepTimedOut
	case "canceled":
		return stepCanceled
	}
	return stepFailed // "panic", "error"
}

// liveStep is one observer event of a run under way.
type liveStep struct {
	stage   stages.Stage
	hook    string
	step    string
	outcome string
	err     error
	// at and end are the times since the run's start when the call
	// began (the previous event) and ended (its own event).
	at, end time.Duration
}

// live is what the console records of a run while it runs, on the run's
// goroutine; it is recycled once the feed has turned it into a [record].
type live struct {
	start time.Time
	last  time.Duration
	steps [maxSteps]liveStep
	n     int
	more  int
	// stop is the first event that stopped the run (a hook's abort,
	// panic or timeout, a step's error), as it was before onError hooks
	// changed the run's error; answer is the hook that answered early.
	stop   *liveStep
	answer string
	// recovered is the onError hook that answered a failed run.
	recovered string
	// filled in finally by the console's last hook.
	flow      flows.ID
	entity    string
	upstream  any
	principal string
	session   string
	request   string
	err       error
	isError   bool
	errText   string
	result    []byte
	resultLen int
	args      []byte
	prompt    *mcp.GetPromptParams
	uri       string
	decisions []flows.Decision
	failures  []error
	traceID   string
	dur       time.Duration
}

func (l *live) reset() {
	*l = live{}
}

// add records an event at now.
func (l *live) add(ev *flows.Event, now time.Time) {
	at := now.Sub(l.start)
	if l.n == maxSteps {
		l.more++
		l.last = at
		return
	}
	s := &l.steps[l.n]
	l.n++
	*s = liveStep{stage: ev.Stage, hook: ev.Hook, step: ev.Step, outcome: ev.Outcome, err: ev.Err, at: l.last, end: at}
	l.last = at
	if l.stop == nil && ev.Stage < stages.OnError {
		switch ev.Outcome {
		case "abort", "panic", "timeout", "error", "canceled":
			l.stop = s
		}
	}
	if ev.Outcome == "respond" {
		switch {
		case ev.Stage <= stages.BeforeExecute:
			l.answer = ev.Hook
		case ev.Stage == stages.OnError:
			l.recovered = ev.Hook
		}
	}
}

// record is one finished run as the console shows it. It is immutable once
// in the ring.
type record struct {
	// Seq numbers the run in the ring, from 1; ID names it for good
	// (see runid.go).
	Seq       uint64
	ID        string
	Start     time.Time
	Duration  time.Duration
	Flow      string
	Entity    string
	Upstream  string
	Principal string
	SessionID string
	RequestID string
	Outcome   string
	DecidedBy string
	// Reason is what the client read of the failure: the error's reason,
	// or an isError result's first text.
	Reason     string
	Steps      []stepView
	MoreSteps  int
	Decisions  []flows.Decision
	FailedOpen []stepView
	Args       string
	URI        string
	Result     string
	TraceID    string
}

// stepView is one hook call or step of a run's waterfall.
type stepView struct {
	Stage   string
	Hook    string
	Step    string
	Outcome string
	Reason  string
	At      time.Duration
	Dur     time.Duration
}

// ring keeps the newest runs, and tells the live streams of each new one.
type ring struct {
	mu    sync.Mutex
	runs  []*record // a circle of len cap; next is where the next run goes
	next  int
	full  bool
	seq   uint64
	stamp stamp
	subs  map[*viewer]struct{}
}

func newRing(n int) *ring {
	return &ring{runs: make([]*record, n), subs: map[*viewer]struct{}{}, stamp: newStamp()}
}

// add numbers r, keeps it, and offers it to every viewer.
func (g *ring) add(r *record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	r.Seq, r.ID = g.seq, g.stamp.runID(time.Now(), g.seq)
	g.runs[g.next] = r
	g.next++
	if g.next == len(g.runs) {
		g.next, g.full = 0, true
	}
	for v := range g.subs {
		v.offer(r)
	}
}

// list returns up to n runs that match keep, newest first.
func (g *ring) list(n int, keep func(*record) bool) []*record {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*record
	count := g.next
	if g.full {
		count = len(g.runs)
	}
	for i := 1; i <= count && len(out) < n; i++ {
		r := g.runs[(g.next-i+len(g.runs))%len(g.runs)]
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// get returns the run numbered seq, if it is still kept.
func (g *ring) get(seq uint64) *record {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.getLocked(seq)
}

// byID returns the run id names, if it is still kept, and whether id
// names a run of an earlier start of the console.
func (g *ring) byID(id string) (r *record, earlier bool) {
	low, ours, ok := g.stamp.parseRunID(id)
	if !ok || !ours {
		return nil, ok
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.getLocked(g.seqOf(low)); r != nil && r.ID == id {
		return r, false
	}
	return nil, false
}

// seqOf returns the newest number, up to g.seq, whose low 32 bits are
// low. Callers hold mu.
func (g *ring) seqOf(low uint32) uint64 {
	return g.seq - uint64(uint32(g.seq)-low)
}

// getLocked is get; callers hold mu.
func (g *ring) getLocked(seq uint64) *record {
	if seq == 0 || seq > g.seq || g.seq-seq >= uint64(len(g.runs)) {
		return nil
	}
	return g.runs[(g.next-int(g.seq-seq)-1+len(g.runs))%len(g.runs)]
}

// subscribe adds v to the viewers told of new runs, unless there are
// already max of them. When after names a run (a run ID the viewer saw
// last), the runs kept since come first, at most replayMax of them, and
// missed counts those after it no longer kept or past replayMax (-1: after
// is of an earlier start, so how many is not known). Replay and the live
// runs after it come under one lock: none is lost or sent twice.
func (g *ring) subscribe(v *viewer, max int, after string) (ok bool, missed int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.subs) >= max {
		return false, 0
	}
	g.subs[v] = struct{}{}
	if after == "" {
		return true, 0
	}
	low, ours, valid := g.stamp.parseRunID(after)
	switch {
	case !valid:
		return true, 0
	case !ours:
		return true, -1
	}
	last := g.seqOf(low)
	oldest := g.seq - uint64(g.kept()) + 1
	if last+1 < oldest {
		missed = int(oldest - last - 1)
		last = oldest - 1
	}
	if n := g.seq - last; n > replayMax {
		missed += int(n - replayMax)
		last = g.seq - replayMax
	}
	for s := last + 1; s <= g.seq; s++ {
		v.queue = append(v.queue, g.getLocked(s))
	}
	v.replayed = len(v.queue)
	return true, missed
}

// kept returns how many runs the ring holds. Callers hold mu.
func (g *ring) kept() int {
	if g.full {
		return len(g.runs)
	}
	return g.next
}

// lastID returns the newest run's ID, or "".
func (g *ring) lastID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.getLocked(g.seq); r != nil {
		return r.ID
	}
	return ""
}

func (g *ring) unsubscribe(v *viewer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.subs, v)
}

// viewerBuffer is how many runs a live stream holds for a viewer that
// reads slower than runs finish; past it the oldest are dropped and the
// stream says how many.
const viewerBuffer = 64

// replayMax is how many kept runs a reconnecting viewer is sent at most:
// the runs list's length.
const replayMax = pageRuns

// viewer is one open live stream: a bounded buffer of runs to send.
type viewer struct {
	mu      sync.Mutex
	queue   []*record
	dropped int
	// replayed is how many runs subscribe queued before the first take:
	// the buffer holds them besides its viewerBuffer.
	replayed int
	wake     chan struct{}
}

func newViewer() *viewer { return &viewer{wake: make(chan struct{}, 1)} }

// offer queues r, dropping the oldest queued run when the buffer is full.
func (v *viewer) offer(r *record) {
	v.mu.Lock()
	if len(v.queue) >= viewerBuffer+v.replayed {
		copy(v.queue, v.queue[1:])
		v.queue = v.queue[:len(v.queue)-1]
		v.dropped++
	}
	v.queue = append(v.queue, r)
	v.mu.Unlock()
	v.wakeUp()
}

// wakeUp tells the viewer's stream that runs wait.
func (v *viewer) wakeUp() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// take returns the queued runs and how many were dropped since the last
// take.
func (v *viewer) take() ([]*record, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	q, d := v.queue, v.dropped
	v.queue, v.dropped, v.replayed = nil, 0, 0
	return q, d
}
