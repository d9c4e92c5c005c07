package console

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// maxResultBytes is the longest encoded result the console redacts;
// a longer one is shown by its length alone.
const maxResultBytes = 1 << 20

// queueSize is how many finished runs may wait for the feed's goroutine;
// past it a run is dropped and counted ([Plugin.Dropped]).
const queueSize = 1024

// Plugin is the console. Create it with [New], attach it to a server
// (Server.Use), serve [Plugin.Handler] or set Config.Addr, and
// [Plugin.Close] it when the server stops.
type Plugin struct {
	cfg  Config
	key  flows.Key[*live]
	pool sync.Pool

	mu    sync.Mutex // guards setup
	setup bool
	// observing is set once the observer is added: a console attached
	// to several apps of a server observes its runs once.
	observing bool
	setupErr  error
	srv       *framework.Server
	redact    *flows.Redactor
	ring      *ring
	rates     *rates
	handler   http.Handler
	tmpl      *template.Template
	q         chan *live
	stop      chan struct{}
	done      chan struct{}
	listener  *http.Server
	addr      net.Addr

	closed  atomic.Bool
	dropped atomic.Uint64
}

// New returns a console configured by cfg, checked when it is attached.
func New(cfg Config) *Plugin {
	p := &Plugin{cfg: cfg, key: flows.NewKey[*live]("console.run")}
	p.pool.New = func() any { return new(live) }
	return p
}

// Name returns Config.Name, or "console".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "console"
}

// Attach checks the configuration, starts the feed (and the listener of
// Config.Addr) the first time, and watches every flow of the server: an
// observer sees each hook call and step, a first hook notes the start and
// a last hook in finally hands the run to the feed.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.start(pc.Server); err != nil {
		return err
	}
	var hooks []flows.Hook
	for _, f := range flows.All() {
		hooks = append(hooks,
			flows.Hook{Flow: f.ID, Stage: stages.BeforeValidation, Priority: priority.First, Name: "start", Fn: p.begin},
			flows.Hook{Flow: f.ID, Stage: stages.Finally, Priority: priority.Last, Name: "feed", Fn: p.finish},
		)
	}
	if err := pc.Hook(hooks...); err != nil {
		return err
	}
	p.mu.Lock()
	first := !p.observing
	p.observing = true
	p.mu.Unlock()
	if !first {
		return nil // attached to a second app: one observer serves both
	}
	if err := pc.OnRefusal(p.RecordRefusal); err != nil {
		return err
	}
	return pc.Observe(p.observe)
}

func (p *Plugin) start(srv *framework.Server) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.setup {
		return p.setupErr
	}
	p.setup = true
	p.setupErr = p.open(srv)
	return p.setupErr
}

func (p *Plugin) open(srv *framework.Server) error {
	if err := errors.Join(p.cfg.Validate(), p.cfg.checkTokenEnv()); err != nil {
		return err
	}
	if p.closed.Load() {
		return errors.New("the console is closed")
	}
	c := p.cfg.withDefaults()
	r, err := flows.NewRedactor(flows.Redaction{Fields: c.Redact, Reveal: c.Reveal})
	if err != nil {
		return err
	}
	p.cfg, p.srv, p.redact = c, srv, r
	p.ring = newRing(c.Runs)
	p.rates = newRates(c.Window)
	p.tmpl = p.parseTemplates()
	p.handler = p.newHandler()
	p.q = make(chan *live, queueSize)
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.work()
	if c.Addr != "" {
		ln, err := net.Listen("tcp", c.Addr)
		if err != nil {
			close(p.stop)
			<-p.done
			return &flows.Error{Code: flows.CodeInvalid, Field: "addr", Err: err}
		}
		p.addr = ln.Addr()
		mux := http.NewServeMux()
		mux.Handle(c.Path, p.handler)
		mux.Handle(c.Path+"/", p.handler)
		mux.Handle("/favicon.ico", p.handler)
		p.listener = framework.NewHTTPServer("", mux)
		go func() {
			if err := p.listener.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				srv.Logger().Error("console: serving", slog.Any("err", err))
			}
		}()
		srv.Logger().Info("console: serving", slog.String("url", "http://"+ln.Addr().String()+c.Path))
	}
	return nil
}

// Addr returns the address the console's own listener (Config.Addr)
// listens on, or nil: with port 0 it tells the port chosen.
func (p *Plugin) Addr() net.Addr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Handler returns the console's HTTP handler, which serves the pages
// under Config.Path; nil until the plugin is attached. It needs a
// credential (see the package doc): mount it behind the auth plugin's
// handler for the scope, or give the console a token.
func (p *Plugin) Handler() http.Handler {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.handler
}

// Pages returns the path the console is served under and its handler,
// once it is attached, for a host that serves it behind the auth plugin
// on its MCP listener (the hookflow gateway); "" and nil when it has a
// listener of its own (Config.Addr), or is not attached yet.
func (p *Plugin) Pages() (path string, h http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.handler == nil || p.cfg.Addr != "" {
		return "", nil
	}
	return p.cfg.Path, p.handler
}

// Dropped returns how many finished runs the console could not keep
// because its feed was behind by more than 1024 runs.
func (p *Plugin) Dropped() uint64 { return p.dropped.Load() }

// Close stops the listener and the feed, waiting at most until ctx is
// done. Runs that finish afterwards are not kept.
func (p *Plugin) Close(ctx context.Context) error {
	if p.closed.Swap(true) {
		return nil
	}
	p.mu.Lock()
	started := p.setup && p.setupErr == nil
	p.mu.Unlock()
	if !started {
		return nil
	}
	var err error
	if p.listener != nil {
		err = p.listener.Shutdown(ctx)
		if err != nil {
			p.listener.Close()
		}
	}
	close(p.stop)
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// begin notes the run's start; it runs first of all the run's hooks.
func (p *Plugin) begin(c *flows.Context) error {
	l := p.pool.Get().(*live)
	l.start = time.Now()
	p.key.Set(c, l)
	return nil
}

// observe adds each hook call and step to the run's record.
func (p *Plugin) observe(ev *flows.Event) {
	if ev.Context == nil {
		return
	}
	if l, ok := p.key.Get(ev.Context); ok {
		l.add(ev, time.Now())
	}
}

// finish runs last in finally: it fills in what the run ended with and
// hands the record to the feed, without blocking.
func (p *Plugin) finish(c *flows.Context) error {
	l, ok := p.key.Get(c)
	if ok {
		p.key.Delete(c)
	} else {
		l = p.pool.Get().(*live)
		l.start = time.Now()
	}
	if p.closed.Load() {
		p.recycle(l)
		return nil
	}
	l.dur = time.Since(l.start)
	l.flow = c.Flow()
	if e := c.Entity(); e != nil {
		l.entity, l.upstream = e.Name, e.Value
	}
	r := c.Request()
	l.principal = r.Principal()
	if r != nil {
		l.session, l.request = r.SessionID, r.ID
	}
	l.err = c.Err()
	if res, ok := c.Output().(*mcp.CallToolResult); ok && res != nil {
		// The SDK goes on writing to the result once the run ends: the
		// console keeps what it needs now.
		l.isError = res.IsError
		if res.IsError {
			l.errText = resultText(res)
		}
		if p.cfg.Results {
			l.result, _ = json.Marshal(res)
			if len(l.result) > maxResultBytes {
				l.resultLen, l.result = len(l.result), nil
			}
		}
	}
	if l.args = c.Arguments(); len(l.args) == 0 {
		switch in := c.Input().(type) {
		case json.RawMessage:
			l.args = in // cancelled before the first hook: still raw
		case *mcp.GetPromptParams:
			l.prompt = in // nothing writes to it once the run is over
		case *mcp.ReadResourceParams:
			if in != nil {
				l.uri = in.URI
			}
		}
	}
	if ds := c.Decisions(); len(ds) > 0 {
		l.decisions = append(l.decisions[:0], ds...)
	}
	if fs := c.Failures(); len(fs) > 0 {
		l.failures = append(l.failures[:0], fs...)
	}
	if p.cfg.TraceURL != "" {
		if sc := trace.SpanContextFromContext(c.Context()); sc.HasTraceID() {
			l.traceID = sc.TraceID().String()
		}
	}
	select {
	case p.q <- l:
	default:
		p.dropped.Add(1)
		p.recycle(l)
	}
	return nil
}

// RecordRefusal keeps a request refused before any flow ran for it, such
// as the auth plugin's HTTP scope challenge (the console is an
// auth.Auditor), as a blocked run decided by r.By, with one step: the
// refusal. Like a run's, it never blocks: a full queue drops it.
func (p *Plugin) RecordRefusal(_ context.Context, r flows.Refusal) {
	p.mu.Lock()
	started := p.setup && p.setupErr == nil
	p.mu.Unlock()
	if !started || p.closed.Load() {
		return
	}
	l := p.pool.Get().(*live)
	l.start = time.Now()
	l.flow, l.entity = r.Flow, r.Entity
	req := r.Request
	l.principal = req.Principal()
	if req != nil {
		l.session, l.request = req.SessionID, req.ID
	}
	l.err = r.Err
	if l.err == nil {
		l.err = flows.ErrAborted
	}
	l.args = r.Args
	l.steps[0] = liveStep{hook: r.By, step: "before any flow", outcome: "abort", err: l.err}
	l.n, l.stop = 1, &l.steps[0]
	select {
	case p.q <- l:
	default:
		p.dropped.Add(1)
		p.recycle(l)
	}
}

func (p *Plugin) recycle(l *live) {
	l.reset()
	p.pool.Put(l)
}

// work turns finished runs into Runs, off the request path, until Close.
func (p *Plugin) work() {
	defer close(p.done)
	for {
		select {
		case l := <-p.q:
			p.keep(l)
		case <-p.stop:
			return
		}
	}
}

// keep builds l's record, adds it to the ring and the rates, and recycles l.
func (p *Plugin) keep(l *live) {
	r := p.build(l)
	p.rates.add(l, r)
	p.ring.add(r)
	p.recycle(l)
}

var (
	_ framework.Plugin = (*Plugin)(nil)
)
