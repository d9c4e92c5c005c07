package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Plugin is the audit plugin. Create it with [New], attach it to a server
// or an app, and [Plugin.Close] it when the server stops.
//
// Events are built in the finally stage, put on a bounded queue and written
// by one goroutine, so that a slow or failing sink never delays or fails a
// call: an event that does not fit the queue, or that a sink fails to write,
// is counted by [Plugin.Dropped].
type Plugin struct {
	cfg  Config
	note flows.Key[*item]
	// items recycles the queue's items: a run takes one in its first
	// stage and the writer puts it back once the sinks have its event.
	items sync.Pool

	mu       sync.Mutex // guards setup
	setup    bool
	setupErr error
	redact   *flows.Redactor
	sinks    []sink
	audited  [flows.Count]bool

	qmu    sync.RWMutex // readers enqueue; Close writes closed
	closed bool
	q      chan *item
	stop   chan struct{}
	done   chan struct{} // closed when the writer has stopped and closed the sinks
	// closeErr is the sinks' close error, set before done is closed.
	closeErr error
	// pending is how many sink writes of the event being written are
	// still to be counted; a Close that gives up swaps in gaveUp and counts
	// them as dropped itself, so that a stuck sink's late return is not
	// counted twice.
	pending atomic.Int64

	dropped atomic.Uint64
	written atomic.Uint64
}

// gaveUp marks pending once a Close has given up on the writer.
const gaveUp = math.MinInt64 / 2

// item is an event on the queue, or a flush marker. A run's item holds
// its note from the first stage, and its event from finally; the queue
// holds pointers, so that its buffer is small for the collector to scan,
// and the items are recycled, so that queueing allocates nothing.
type item struct {
	n  note
	ev Event
	// args or params are the arguments to redact.
	args   json.RawMessage
	params map[string]any
	flush  chan struct{}
}

// note is what the plugin's hooks record during a run.
type note struct {
	start time.Time
	// args (tools/call) or params (prompts/get) are the arguments as the
	// client sent them.
	args   json.RawMessage
	params map[string]any
	uri    string
	// answered: a hook answered before execute (seen at the top of
	// afterExecute).
	answered   bool
	answeredBy string
	// failed: the run failed; failedBy and failCode are the failure as it
	// was before onError hooks rewrote it.
	failed   bool
	failedBy string
	failCode flows.Code
}

// New returns an audit plugin configured by cfg. The configuration is
// checked when the plugin is attached.
func New(cfg Config) *Plugin {
	p := &Plugin{cfg: cfg, note: flows.NewKey[*item]("audit.note")}
	p.items.New = func() any { return new(item) }
	return p
}

// item returns a cleared item from the pool.
func (p *Plugin) item() *item { return p.items.Get().(*item) }

// recycle clears it and puts it back in the pool.
func (p *Plugin) recycle(it *item) {
	*it = item{}
	p.items.Put(it)
}

// Name returns Config.Name, or "audit".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "audit"
}

// Attach checks the configuration, opens the sinks and starts the writer
// (the first time), and registers the plugin's hooks on every audited flow.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.start(pc); err != nil {
		return err
	}
	var hooks []flows.Hook
	for _, f := range flows.All() {
		if !p.audited[f.ID.Index()] {
			continue
		}
		// priority.Audit: the plugin sees each stage before any hook
		// that could change what it records (only the cache's store
		// comes first in afterExecute, and changes nothing).
		hooks = append(hooks,
			flows.Hook{Flow: f.ID, Stage: stages.BeforeValidation, Priority: priority.Audit, Name: "start", Fn: p.begin},
			flows.Hook{Flow: f.ID, Stage: stages.AfterExecute, Priority: priority.Audit, Name: "answered", Fn: p.answered},
			flows.Hook{Flow: f.ID, Stage: stages.OnError, Priority: priority.Audit, Name: "failed", Fn: p.failed},
			flows.Hook{Flow: f.ID, Stage: stages.Finally, Priority: priority.Audit, Name: "event", Fn: p.event},
		)
	}
	return pc.Hook(hooks...)
}

func (p *Plugin) start(pc *framework.PluginContext) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.setup {
		return p.setupErr
	}
	p.setup = true
	p.setupErr = p.open(pc)
	return p.setupErr
}

// open validates the configuration, applies the defaults and opens the
// sinks. Errors name the field.
func (p *Plugin) open(pc *framework.PluginContext) error {
	c := p.cfg
	if err := c.Validate(); err != nil {
		return err
	}
	if c.QueueSize == 0 {
		c.QueueSize = DefaultQueueSize
	}
	if c.MaxArgsBytes == 0 {
		c.MaxArgsBytes = DefaultMaxArgsBytes
	}
	if c.MaxTextBytes == 0 {
		c.MaxTextBytes = DefaultMaxTextBytes
	}
	if c.File.MaxBytes == 0 {
		c.File.MaxBytes = DefaultMaxBytes
	}
	if c.File.MaxBackups == 0 {
		c.File.MaxBackups = DefaultMaxBackups
	}
	if c.Flows == nil {
		for _, f := range flows.All() {
			p.audited[f.ID.Index()] = true
		}
	}
	for _, f := range c.Flows {
		p.audited[f.Index()] = true
	}
	r, err := flows.NewRedactor(flows.Redaction{Fields: c.Redact, Reveal: c.Reveal})
	if err != nil {
		return err
	}
	if err := pc.OnRefusal(p.RecordRefusal); err != nil {
		return err
	}
	p.redact = r
	if c.Handler != nil {
		p.sinks = append(p.sinks, handlerSink{c.Handler})
	}
	if c.File.Stderr {
		p.sinks = append(p.sinks, handlerSink{slog.NewJSONHandler(os.Stderr, nil)})
	}
	if c.File.Path != "" {
		f, err := openRotatingFile(c.File.Path, c.File.MaxBytes, c.File.MaxBackups)
		if err != nil {
			return &flows.Error{Code: flows.CodeInvalid, Field: "file.path", Err: err}
		}
		p.sinks = append(p.sinks, &fileSink{f: f})
	}
	if len(p.sinks) == 0 {
		p.sinks = append(p.sinks, handlerSink{pc.Server.Logger().Handler()})
	}
	p.cfg = c
	p.qmu.Lock()
	defer p.qmu.Unlock()
	if p.closed {
		return errors.New("the plugin is closed")
	}
	p.q = make(chan *item, c.QueueSize)
	p.stop = make(chan struct{})
	p.done = make(chan struct{})
	go p.work()
	return nil
}

// begin records the start and the arguments as the client sent them.
func (p *Plugin) begin(c *flows.Context) error {
	it := p.item()
	n := &it.n
	n.start = time.Now()
	switch in := c.Input().(type) {
	case json.RawMessage: // tools:call-tool
		n.args = in
	case *mcp.GetPromptParams:
		if in != nil && len(in.Arguments) > 0 {
			args := make(map[string]any, len(in.Arguments))
			for k, v := range in.Arguments {
				args[k] = v
			}
			n.params = args
		}
	case *mcp.ReadResourceParams:
		if in != nil {
			n.uri = in.URI
		}
	}
	p.note.Set(c, it)
	return nil
}

// answered runs first in afterExecute: a run that has been answered by
// then was answered before execute.
func (p *Plugin) answered(c *flows.Context) error {
	if it, ok := p.note.Get(c); ok && c.Responded() {
		it.n.answered, it.n.answeredBy = true, c.DecidedBy()
	}
	return nil
}

// failed runs first in onError and records the failure before other onError
// hooks rewrite or recover it.
func (p *Plugin) failed(c *flows.Context) error {
	if it, ok := p.note.Get(c); ok {
		it.n.failed, it.n.failedBy, it.n.failCode = true, c.DecidedBy(), flows.CodeOf(c.Err())
	}
	return nil
}

// event builds the run's event and queues it. It never blocks.
func (p *Plugin) event(c *flows.Context) error {
	now := time.Now()
	r := c.Request()
	it, ok := p.note.Get(c)
	var n *note
	if ok {
		n = &it.n
	} else {
		it = p.item() // cancelled before the first hook
	}
	it.ev = Event{
		Time:      now,
		Flow:      c.Flow(),
		SessionID: r.SessionID,
		RequestID: r.ID,
		Principal: r.Principal(),
		ClientID:  r.ClientID(),
	}
	ev := &it.ev
	if e := c.Entity(); e != nil {
		ev.Entity = e.Name
	}
	if n != nil {
		ev.Duration = now.Sub(n.start)
		ev.URI = n.uri
		it.args, it.params = n.args, n.params
	} else if raw, ok := c.Input().(json.RawMessage); ok {
		it.args = raw // cancelled before the first hook: still raw
	}
	if ds := c.Decisions(); len(ds) > 0 {
		ev.Decisions = slices.Clone(ds) // the run's own are recycled
	}
	if c.DroppedDecisions() > 0 {
		ev.Truncated = append(ev.Truncated, "decisions")
	}
	err := c.Err()
	switch {
	case err != nil:
		ev.Error = reason(err)
		by, code := c.DecidedBy(), flows.CodeOf(err)
		if n != nil && n.failed {
			by, code = n.failedBy, n.failCode
		}
		ev.DecidedBy = by
		if by != "" && (code == flows.CodeAborted || code == flows.CodeLimited) {
			ev.Outcome = Blocked
		} else {
			ev.Outcome = Failed
		}
	case n != nil && n.answered:
		ev.Outcome, ev.DecidedBy = AnsweredEarly, n.answeredBy
	case n != nil && n.failed && c.Responded():
		ev.Outcome, ev.DecidedBy = Recovered, c.DecidedBy()
	default:
		ev.Outcome = OK
		if res, ok := c.Output().(*mcp.CallToolResult); ok && res != nil && res.IsError {
			ev.Outcome = Failed
			ev.Error = resultText(res)
		}
	}
	for _, f := range c.Failures() {
		hf := HookFailure{Code: flows.CodeOf(f).String(), Error: reason(f)}
		var fe *flows.Error
		if errors.As(f, &fe) {
			hf.Hook = fe.Hook
		}
		ev.FailedOpen = append(ev.FailedOpen, hf)
	}
	p.enqueue(it)
	return nil
}

func resultText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// RecordRefusal queues the event of a request refused before any flow ran
// for it, e.g. by the auth plugin's HTTP scope challenge (auth.Config.Audit
// takes the plugin): outcome "blocked", decided by r.By, at the time of
// the call. Its Args are redacted and its fields capped like a run's.
// Refusals of flows outside Config.Flows are ignored. RecordRefusal never
// blocks: a full queue drops the event and counts it.
func (p *Plugin) RecordRefusal(_ context.Context, r flows.Refusal) {
	if i := r.Flow.Index(); i < 0 || !p.audited[i] {
		return
	}
	req := r.Request
	if req == nil {
		req = &flows.Request{}
	}
	it := p.item()
	it.ev = Event{
		Time:      time.Now(),
		Flow:      r.Flow,
		Entity:    r.Entity,
		SessionID: req.SessionID,
		RequestID: req.ID,
		Principal: req.Principal(),
		ClientID:  req.ClientID(),
		Outcome:   Blocked,
		DecidedBy: r.By,
		Error:     reason(r.Err),
	}
	it.args = r.Args
	p.enqueue(it)
}

// enqueue puts it on the queue, or counts it as dropped when the queue is
// full or the plugin closed. It never blocks.
func (p *Plugin) enqueue(it *item) {
	p.qmu.RLock()
	defer p.qmu.RUnlock()
	if p.closed || p.q == nil {
		p.dropped.Add(1)
		p.recycle(it)
		return
	}
	select {
	case p.q <- it:
	default:
		p.dropped.Add(1)
		p.recycle(it)
	}
}

// work writes queued events until Close, then drains the queue and closes
// the sinks. When a Close has given up on it (a sink is stuck), it counts
// what is left as dropped instead of writing it.
func (p *Plugin) work() {
	defer close(p.done)
	defer func() {
		var errs []error
		for _, s := range p.sinks {
			errs = append(errs, s.close())
		}
		p.closeErr = errors.Join(errs...)
	}()
	for {
		select {
		case it := <-p.q:
			if !p.handle(it) {
				return
			}
		case <-p.stop:
			for {
				select {
				case it := <-p.q:
					if !p.handle(it) {
						return
					}
				default:
					return
				}
			}
		}
	}
}

// handle writes it to every sink, and recycles it; it reports false when
// a Close has given up on the writer (it then counts it as dropped).
func (p *Plugin) handle(it *item) bool {
	if it.flush != nil {
		close(it.flush)
		return true
	}
	if !p.pending.CompareAndSwap(0, int64(len(p.sinks))) {
		p.dropped.Add(1)
		return false
	}
	defer p.recycle(it)
	ev := &it.ev // on the writer's goroutine
	p.limit(ev, it)
	for _, s := range p.sinks {
		err := safeWrite(s, ev)
		if p.pending.Add(-1) < 0 {
			continue // Close counted this write as dropped
		}
		if err != nil {
			p.dropped.Add(1)
		} else {
			p.written.Add(1)
		}
	}
	return true
}

// limit redacts the event's arguments and caps its client-supplied fields.
func (p *Plugin) limit(ev *Event, it *item) {
	switch {
	case it.args != nil:
		ev.Args = p.redact.Redact(it.args)
	case it.params != nil:
		ev.Args = p.redact.RedactValue(it.params)
	}
	if len(ev.Args) > p.cfg.MaxArgsBytes {
		ev.Args = truncateJSON(ev.Args, p.cfg.MaxArgsBytes)
		ev.Truncated = append(ev.Truncated, "args")
	}
	if len(ev.Error) > p.cfg.MaxTextBytes {
		ev.Error = truncateText(ev.Error, p.cfg.MaxTextBytes)
		ev.Truncated = append(ev.Truncated, "error")
	}
	if len(ev.URI) > p.cfg.MaxTextBytes {
		ev.URI = truncateText(ev.URI, p.cfg.MaxTextBytes)
		ev.Truncated = append(ev.Truncated, "uri")
	}
	cut := false
	for i := range ev.FailedOpen {
		if f := &ev.FailedOpen[i]; len(f.Error) > p.cfg.MaxTextBytes {
			f.Error, cut = truncateText(f.Error, p.cfg.MaxTextBytes), true
		}
	}
	if cut {
		ev.Truncated = append(ev.Truncated, "failed_open")
	}
	cut = false
	for i := range ev.Decisions {
		if d := &ev.Decisions[i]; len(d.Reason) > p.cfg.MaxTextBytes {
			d.Reason, cut = truncateText(d.Reason, p.cfg.MaxTextBytes), true
		}
	}
	if cut && !slices.Contains(ev.Truncated, "decisions") {
		ev.Truncated = append(ev.Truncated, "decisions")
	}
}

// safeWrite writes ev to s; a panicking sink counts as a failed write.
func safeWrite(s sink, ev *Event) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("audit sink panicked: %v", v)
		}
	}()
	return s.write(ev)
}

// Dropped returns how many events were lost: one for each event that found
// the queue full (or the plugin closed), and one for each write a sink
// failed.
func (p *Plugin) Dropped() uint64 { return p.dropped.Load() }

// Written returns how many events the sinks wrote (one per sink and event).
func (p *Plugin) Written() uint64 { return p.written.Load() }

// Flush waits until every event queued before the call has been handed to
// the sinks, or ctx is done.
func (p *Plugin) Flush(ctx context.Context) error {
	done := make(chan struct{})
	for {
		p.qmu.RLock()
		if p.closed || p.q == nil {
			p.qmu.RUnlock()
			return nil
		}
		select {
		case p.q <- &item{flush: done}:
			p.qmu.RUnlock()
			select {
			case <-done:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		default: // full: wait for room without holding the lock
			p.qmu.RUnlock()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// Close writes the queued events, stops the writer and closes the sinks,
// waiting at most until ctx is done. When ctx ends first (a sink is stuck),
// Close returns ctx's error and counts every event it could not write as
// dropped; the writer closes the sinks when the stuck write returns.
// Events of runs that finish after Close are dropped. Close may be called
// again: it waits, bounded by its own ctx, for the writer to stop, and
// returns the sinks' close error.
func (p *Plugin) Close(ctx context.Context) error {
	p.qmu.Lock()
	first := !p.closed
	p.closed = true
	started := p.q != nil
	p.qmu.Unlock()
	if !started {
		return nil
	}
	if first {
		close(p.stop)
	}
	select {
	case <-p.done:
		return p.closeErr
	case <-ctx.Done():
	}
	if first {
		p.giveUp()
	}
	return ctx.Err()
}

// giveUp counts what the writer has not written yet as dropped: the
// pending writes of the event it is stuck on, and the queued events.
func (p *Plugin) giveUp() {
	if n := p.pending.Swap(gaveUp); n > 0 {
		p.dropped.Add(uint64(n))
	}
	for {
		select {
		case it := <-p.q:
			if it.flush != nil {
				close(it.flush)
			} else {
				p.dropped.Add(1)
			}
		default:
			return
		}
	}
}

var _ framework.Plugin = (*Plugin)(nil)
