package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name.
const Name = "ratelimit"

// DefaultTimeout bounds each backend decision when [Config.Timeout] is 0.
const DefaultTimeout = 250 * time.Millisecond

// LateReplyWait is how long past [Config.Timeout] the plugin still waits,
// off the call's path, for the reply of a backend decision the call gave
// up on, to refund the tokens of a late grant (see [Refunder]).
const LateReplyWait = time.Second

// Limit is a token bucket: it holds at most Burst tokens, gains Rate tokens
// per second, and each call takes one. The zero Limit is "no limit". A
// configuration file writes a Limit as "10/s" (see [Limit.UnmarshalText])
// or as {rate: 0.5, burst: 10}.
type Limit struct {
	// Rate is how many tokens the bucket gains per second. 0 never refills:
	// a fixed quota of Burst calls (per bucket lifetime, see MaxIdle).
	Rate float64 `yaml:"rate"`
	// Burst is the bucket's size: how many calls may follow each other
	// without waiting. At least 1 for a Limit that is set.
	Burst int `yaml:"burst"`
}

// Per returns the Limit of n calls per period, with bursts of up to n:
// Per(60, time.Minute) refills one call a second.
func Per(n int, period time.Duration) Limit {
	if period <= 0 {
		return Limit{Rate: math.NaN(), Burst: n} // rejected by validation
	}
	return Limit{Rate: float64(n) / period.Seconds(), Burst: n}
}

// Enabled reports whether l limits anything (it is not the zero Limit).
func (l Limit) Enabled() bool { return l.Rate != 0 || l.Burst != 0 }

// Dimension is what a budget is counted per.
type Dimension int

const (
	// Session: per MCP session (the transport's session ID; in-process
	// sessions without an ID, as over stdio, get one of their own).
	Session Dimension = iota + 1
	// Principal: per authenticated user (Request().Principal(), the
	// bearer token's UserID); requests without one are not counted.
	Principal
	// Tool: per tool, shared by every caller.
	Tool
)

// String returns "session", "principal" or "tool".
func (d Dimension) String() string {
	switch d {
	case Session:
		return "session"
	case Principal:
		return "principal"
	case Tool:
		return "tool"
	}
	return "Dimension(" + strconv.Itoa(int(d)) + ")"
}

// Plugin is the rate-limit plugin. Build it with [New] and attach it with
// framework.Server.Use (every tool) or App.Use (that app's tools).
type Plugin struct {
	cfg     Config
	backend Backend
	// mem is the backend when it is a *Memory: no timeout needed, and
	// called directly, so that the call's buckets stay on its stack.
	mem      *Memory
	timeout  time.Duration
	priority int
	srv      atomic.Pointer[framework.Server]
	logger   atomic.Pointer[slog.Logger]
	lastLog  atomic.Int64 // unix nanos of the last backend-failure log
	dropped  atomic.Int64 // backend failures not logged since
	// client is the Redis client New built from Config.Redis, for Close.
	client *redis.Client
}

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

// New returns the rate-limit plugin configured by cfg. cfg is validated
// (see [Config.Validate]) when the plugin is attached, so that a bad
// setting stops the server's Start with a message naming the plugin and
// the field. With Config.Redis and no Config.Backend it builds a Redis
// client and backend (it does not connect: the first call does).
func New(cfg Config) *Plugin {
	if cfg.Tools != nil {
		tools := make(map[string]Limit, len(cfg.Tools))
		for k, v := range cfg.Tools {
			tools[k] = v
		}
		cfg.Tools = tools
	}
	if cfg.Redis != nil {
		r := *cfg.Redis
		cfg.Redis = &r
	}
	p := &Plugin{cfg: cfg, backend: cfg.Backend, timeout: cfg.Timeout, priority: cfg.Priority}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.backend == nil && cfg.Redis != nil && cfg.Redis.valid() {
		p.backend, p.client = cfg.Redis.backend(p.timeout)
	}
	if p.backend == nil {
		// Also when Config.Redis is invalid: Attach reports it.
		p.backend = NewMemory(nil)
	}
	p.mem, _ = p.backend.(*Memory)
	if p.priority == 0 {
		p.priority = priority.RateLimit
	}
	return p
}

// Close closes the Redis client New built from Config.Redis, if any; a
// Backend given in Go is the caller's to close. Calls decided after Close
// fail as the backend's failures do (see Config.OnBackendError).
func (p *Plugin) Close() error {
	if p.client == nil {
		return nil
	}
	return p.client.Close()
}

// Name returns "ratelimit".
func (p *Plugin) Name() string { return Name }

// Backend returns the backend the plugin uses.
func (p *Plugin) Backend() Backend { return p.backend }

// Attach validates the configuration and registers the plugin's hook: a
// tools:call-tool beforeValidation hook named "take" that takes a token
// from each budget of the call or refuses it.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.cfg.Validate(); err != nil {
		return err
	}
	logger := p.cfg.Logger
	if logger == nil {
		logger = pc.Server.Logger()
	}
	p.logger.Store(logger)
	p.srv.Store(pc.Server)
	return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Priority: p.priority, Name: "take", Fn: p.take})
}

// Check reports configuration problems that can only be seen once the
// server has started: Tools naming a tool the server does not have (a
// typo there would silently limit nothing), as [Config.Validate] reports
// its errors (Field "tools.<name>"). Call it after the server's Start.
func (p *Plugin) Check() error {
	srv := p.srv.Load()
	if srv == nil {
		return errors.New("ratelimit: the plugin is not attached to a started server (srv.Use(plugin), then srv.Start)")
	}
	var errs []error
	names := make([]string, 0, len(p.cfg.Tools))
	for name := range p.cfg.Tools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := srv.Tool(name); !ok {
			errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: "tools." + name, Msg: fmt.Sprintf("the server has no tool %q", name)})
		}
	}
	return errors.Join(errs...)
}

func (p *Plugin) toolLimit(name string) Limit {
	if l, ok := p.cfg.Tools[name]; ok {
		return l
	}
	return p.cfg.PerTool
}

// Bucket keys: a dimension letter, ':', then the session ID, user ID or
// tool name. Backends add their own prefix.
func (p *Plugin) take(c *flows.Context) error {
	r := c.Request()
	tool := c.Entity().Name
	var bufB [3]Bucket
	var bufD [3]Dimension
	b, dims := bufB[:0], bufD[:0]
	if p.cfg.PerSession.Enabled() {
		if k := sessionKey(r); k != "" {
			b = append(b, Bucket{Key: "s:" + k, Limit: p.cfg.PerSession})
			dims = append(dims, Session)
		}
	}
	if p.cfg.PerPrincipal.Enabled() {
		if u := r.Principal(); u != "" {
			b = append(b, Bucket{Key: "u:" + u, Limit: p.cfg.PerPrincipal})
			dims = append(dims, Principal)
		}
	}
	if l := p.toolLimit(tool); l.Enabled() {
		b = append(b, Bucket{Key: "t:" + tool, Limit: l})
		dims = append(dims, Tool)
	}
	if len(b) == 0 {
		return nil
	}
	ctx := c.Context()
	var d Decision
	var err error
	if p.mem != nil {
		d, err = p.mem.Take(ctx, b)
	} else {
		d, err = p.remoteTake(ctx, b)
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr // the request was cancelled: not the backend's fault
		}
		p.logFailure(c, err)
		if p.cfg.OnBackendError == flows.FailOpen {
			return nil
		}
		return &UnavailableError{Err: err}
	}
	if d.Allowed {
		return nil
	}
	e := &LimitError{Tool: tool, RetryAfter: d.RetryAfter}
	if d.Blocked >= 0 && d.Blocked < len(b) {
		e.Dimension, e.Limit = dims[d.Blocked], b[d.Blocked].Limit
	}
	return &flows.Error{Code: flows.CodeLimited, Flow: c.Flow(), Stage: c.Stage(), Err: e}
}

// errTimeout is the backend failure of a decision that took longer than
// Config.Timeout.
var errTimeout = errors.New("no decision within the plugin's Timeout")

// pendingTake is a remote decision in flight. Its state says who owns the
// outcome: the call, when the decision came in time, or the late-reply
// goroutine, when the call gave up first.
type pendingTake struct {
	state atomic.Int32 // 0 pending, 1 delivered to the call, 2 abandoned by it
	done  chan struct{}
	d     Decision
	err   error
}

// remoteTake asks a backend that does I/O, waiting at most p.timeout (or
// until ctx is done) whatever the backend or its client does with
// deadlines. The backend call itself runs on, up to p.timeout +
// LateReplyWait, so that a grant arriving after the call gave up is
// refunded (when the backend is a Refunder) instead of spending tokens for
// a refused call.
func (p *Plugin) remoteTake(ctx context.Context, buckets []Bucket) (Decision, error) {
	// The goroutine gets a copy: the caller's array is on its stack.
	tk := &pendingTake{done: make(chan struct{})}
	go p.decide(context.WithoutCancel(ctx), slices.Clone(buckets), tk)
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	var why error
	select {
	case <-tk.done:
		return tk.d, tk.err
	case <-timer.C:
		why = errTimeout
	case <-ctx.Done():
		why = ctx.Err()
	}
	if !tk.state.CompareAndSwap(0, 2) { // delivered meanwhile
		<-tk.done
		return tk.d, tk.err
	}
	return Decision{}, why
}

// decide runs one backend decision for remoteTake, and refunds a grant
// that came after the call gave up.
func (p *Plugin) decide(ctx context.Context, buckets []Bucket, tk *pendingTake) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout+LateReplyWait)
	defer cancel()
	d, err := p.backend.Take(ctx, buckets)
	tk.d, tk.err = d, err
	if tk.state.CompareAndSwap(0, 1) {
		close(tk.done)
		return
	}
	if err != nil || !d.Allowed {
		return
	}
	r, ok := p.backend.(Refunder)
	if !ok {
		return
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout+LateReplyWait)
	defer rcancel()
	if err := r.Refund(rctx, buckets); err != nil {
		p.logger.Load().LogAttrs(rctx, slog.LevelWarn, "ratelimit: could not refund the tokens of a late grant",
			slog.Int("buckets", len(buckets)), slog.String("error", err.Error()))
	}
}

// logFailure logs a backend failure, at most once a second.
func (p *Plugin) logFailure(c *flows.Context, err error) {
	now := time.Now().UnixNano()
	last := p.lastLog.Load()
	if now-last < int64(time.Second) || !p.lastLog.CompareAndSwap(last, now) {
		p.dropped.Add(1)
		return
	}
	policy := "refusing calls (fail-closed)"
	if p.cfg.OnBackendError == flows.FailOpen {
		policy = "allowing calls unlimited (fail-open)"
	}
	p.logger.Load().LogAttrs(c.Context(), slog.LevelError, "ratelimit: backend failed; "+policy,
		slog.String("error", err.Error()),
		slog.Int64("unlogged_failures", p.dropped.Swap(0)))
}

// LimitError is why a call was refused: one of its budgets is spent. It
// is the cause of the run's flows.CodeLimited *flows.Error, so the model
// reads its message; hooks that run later (an audit plugin's finally
// hook) find it with errors.As on the run's error, for its Dimension and
// RetryAfter.
type LimitError struct {
	// Dimension is the spent budget's dimension.
	Dimension Dimension
	// Tool is the called tool.
	Tool string
	// Limit is the spent budget's limit.
	Limit Limit
	// RetryAfter is how long until the call would be allowed; Never when
	// the budget does not refill.
	RetryAfter time.Duration
}

// Error says which budget is spent and when to retry, e.g.
// `rate limit: too many calls in this session; retry after 1.5s`.
func (e *LimitError) Error() string {
	var what string
	switch e.Dimension {
	case Session:
		what = "too many calls in this session"
	case Principal:
		what = "too many calls by this user"
	case Tool:
		what = "too many calls to tool " + strconv.Quote(e.Tool)
	default:
		what = "too many calls"
	}
	if e.RetryAfter == Never {
		return "rate limit: " + what + "; this budget does not refill, do not retry"
	}
	return "rate limit: " + what + "; retry after " + roundUp(e.RetryAfter).String()
}

// roundUp rounds d up to a readable precision: ms below a second, tenths
// of a second below a minute, seconds above.
func roundUp(d time.Duration) time.Duration {
	unit := time.Second
	switch {
	case d < time.Second:
		unit = time.Millisecond
	case d < time.Minute:
		unit = 100 * time.Millisecond
	}
	if r := d % unit; r != 0 {
		d += unit - r
	}
	return d
}

// UnavailableError is why a call was refused when the backend could not
// decide and the policy is [flows.FailClosed]. Its message does not show
// the cause (addresses, internals); Unwrap does.
type UnavailableError struct{ Err error }

// Error returns the text the model reads.
func (e *UnavailableError) Error() string {
	return "rate limit: the rate limiter is unavailable, so the call was refused; retry later"
}

// Unwrap returns the backend's error.
func (e *UnavailableError) Unwrap() error { return e.Err }
