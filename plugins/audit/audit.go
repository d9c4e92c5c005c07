package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Config configures the audit plugin. The zero value audits every flow to
// the server's logger.
type Config struct {
	// Name is the plugin's name (default "audit"); set it to attach two
	// audit plugins to one server or app.
	Name string
	// Handler receives every event as a slog record, message "audit" at
	// level Info, with the attributes of [Event].
	Handler slog.Handler
	// File writes every event as one JSON line to a file rotated by size.
	File File
	// Redact lists the argument fields whose values are replaced by
	// [Redacted]: a name ("password") matches that field at any depth, a
	// dotted path ("card.number", "items.*.token") matches from the top, "*"
	// matching any name; arrays are transparent. Names compare
	// case-insensitively.
	Redact []string
	// QueueSize is how many events may wait for the sinks (default 1024).
	// When the queue is full, events are dropped and counted.
	QueueSize int
	// Flows are the flows to audit; nil audits every flow.
	Flows []flows.ID
}

// File configures the JSON-lines file sink. It is off when Path is empty.
type File struct {
	// Path is the file's path. It is created with mode 0600, and appended to.
	Path string
	// MaxBytes is the size a file may reach before it is rotated (default
	// 10 MiB): Path is renamed Path.1, Path.1 becomes Path.2, and so on.
	MaxBytes int64
	// MaxBackups is how many rotated files are kept (default 3).
	MaxBackups int
}

// The defaults of [Config] and [File].
const (
	DefaultQueueSize  = 1024
	DefaultMaxBytes   = 10 << 20
	DefaultMaxBackups = 3
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
	note flows.Key[*note]

	mu       sync.Mutex // guards setup
	setup    bool
	setupErr error
	redact   *redactor
	sinks    []sink
	audited  [flows.Count]bool

	qmu    sync.RWMutex // readers enqueue; Close writes closed
	closed bool
	q      chan item
	stop   chan struct{}
	done   chan struct{}

	dropped atomic.Uint64
	written atomic.Uint64
}

// item is an event on the queue, or a flush marker.
type item struct {
	ev    *Event
	input any // the arguments to redact: json.RawMessage or map[string]any
	flush chan struct{}
}

// note is what the plugin's hooks record during a run.
type note struct {
	start time.Time
	input any
	uri   string
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
	return &Plugin{cfg: cfg, note: flows.NewKey[*note]("audit.note")}
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
	if c.QueueSize < 0 {
		return fmt.Errorf("Config.QueueSize: must not be negative, got %d", c.QueueSize)
	}
	if c.QueueSize == 0 {
		c.QueueSize = DefaultQueueSize
	}
	if c.File.MaxBytes < 0 {
		return fmt.Errorf("Config.File.MaxBytes: must not be negative, got %d", c.File.MaxBytes)
	}
	if c.File.MaxBackups < 0 {
		return fmt.Errorf("Config.File.MaxBackups: must not be negative, got %d", c.File.MaxBackups)
	}
	if c.File.Path == "" && (c.File.MaxBytes != 0 || c.File.MaxBackups != 0) {
		return errors.New("Config.File.Path: required when File.MaxBytes or File.MaxBackups is set")
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
	for i, f := range c.Flows {
		if _, err := flows.Parse(string(f)); err != nil {
			return fmt.Errorf("Config.Flows[%d]: %w", i, err)
		}
		p.audited[f.Index()] = true
	}
	r, err := newRedactor(c.Redact)
	if err != nil {
		return err
	}
	p.redact = r
	if c.Handler != nil {
		p.sinks = append(p.sinks, handlerSink{c.Handler})
	}
	if c.File.Path != "" {
		f, err := openRotatingFile(c.File.Path, c.File.MaxBytes, c.File.MaxBackups)
		if err != nil {
			return fmt.Errorf("Config.File.Path: %w", err)
		}
		p.sinks = append(p.sinks, fileSink{f})
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
	p.q = make(chan item, c.QueueSize)
	p.stop = make(chan struct{})
	p.done = make(chan struct{})
	go p.work()
	return nil
}

// begin records the start and the arguments as the client sent them.
func (p *Plugin) begin(c *flows.Context) error {
	n := &note{start: time.Now()}
	switch in := c.Input().(type) {
	case json.RawMessage: // tools:call-tool
		n.input = in
	case *mcp.GetPromptParams:
		if in != nil && len(in.Arguments) > 0 {
			args := make(map[string]any, len(in.Arguments))
			for k, v := range in.Arguments {
				args[k] = v
			}
			n.input = args
		}
	case *mcp.ReadResourceParams:
		if in != nil {
			n.uri = in.URI
		}
	}
	p.note.Set(c, n)
	return nil
}

// answered runs first in afterExecute: a run that has been answered by
// then was answered before execute.
func (p *Plugin) answered(c *flows.Context) error {
	if n, ok := p.note.Get(c); ok && c.Responded() {
		n.answered, n.answeredBy = true, c.DecidedBy()
	}
	return nil
}

// failed runs first in onError and records the failure before other onError
// hooks rewrite or recover it.
func (p *Plugin) failed(c *flows.Context) error {
	if n, ok := p.note.Get(c); ok {
		n.failed, n.failedBy, n.failCode = true, c.DecidedBy(), flows.CodeOf(c.Err())
	}
	return nil
}

// event builds the run's event and queues it. It never blocks.
func (p *Plugin) event(c *flows.Context) error {
	now := time.Now()
	r := c.Request()
	ev := &Event{
		Time:      now,
		Flow:      c.Flow(),
		SessionID: r.SessionID,
		RequestID: r.ID,
		Principal: r.Principal(),
	}
	if e := c.Entity(); e != nil {
		ev.Entity = e.Name
	}
	n, _ := p.note.Get(c)
	var input any
	if n != nil {
		ev.Duration = now.Sub(n.start)
		ev.URI = n.uri
		input = n.input
	} else if raw, ok := c.Input().(json.RawMessage); ok {
		input = raw // cancelled before the first hook: still raw
	}
	err := c.Err()
	switch {
	case err != nil:
		ev.Error = flows.Reason(err)
		by, code := c.DecidedBy(), flows.CodeOf(err)
		if n != nil && n.failed {
			by, code = n.failedBy, n.failCode
		}
		ev.DecidedBy = by
		if by != "" && code == flows.CodeAborted {
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
	p.enqueue(item{ev: ev, input: input})
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

// enqueue puts it on the queue, or counts it as dropped when the queue is
// full or the plugin closed. It never blocks.
func (p *Plugin) enqueue(it item) {
	p.qmu.RLock()
	defer p.qmu.RUnlock()
	if p.closed || p.q == nil {
		p.dropped.Add(1)
		return
	}
	select {
	case p.q <- it:
	default:
		p.dropped.Add(1)
	}
}

// work writes queued events until Close, then drains the queue.
func (p *Plugin) work() {
	defer close(p.done)
	for {
		select {
		case it := <-p.q:
			p.handle(it)
		case <-p.stop:
			for {
				select {
				case it := <-p.q:
					p.handle(it)
				default:
					return
				}
			}
		}
	}
}

func (p *Plugin) handle(it item) {
	if it.flush != nil {
		close(it.flush)
		return
	}
	switch in := it.input.(type) {
	case json.RawMessage:
		it.ev.Args = p.redact.apply(in)
	case map[string]any:
		it.ev.Args = p.redact.applyValue(in)
	}
	for _, s := range p.sinks {
		if err := safeWrite(s, it.ev); err != nil {
			p.dropped.Add(1)
		} else {
			p.written.Add(1)
		}
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
		case p.q <- item{flush: done}:
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

// Close writes the queued events, stops the writer and closes the file.
// Events of runs that finish afterwards are dropped. Close is idempotent.
func (p *Plugin) Close() error {
	p.qmu.Lock()
	if p.closed {
		p.qmu.Unlock()
		return nil
	}
	p.closed = true
	started := p.q != nil
	p.qmu.Unlock()
	if !started {
		return nil
	}
	close(p.stop)
	<-p.done
	var errs []error
	for _, s := range p.sinks {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

var _ framework.Plugin = (*Plugin)(nil)
