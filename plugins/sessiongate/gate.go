package sessiongate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name.
const Name = "sessiongate"

// DefaultInitTool is the init tool when [Config.InitTool] is empty.
const DefaultInitTool = "session_init"

// DefaultTimeout bounds each store call when [Config.Timeout] is 0.
const DefaultTimeout = 250 * time.Millisecond

// DefaultPriority is the priority of the gate's check when
// [Config.Priority] is 0: after the auth plugin (a call the caller may not
// make is refused for that first), before rate limits (a blocked call
// spends no budget).
const DefaultPriority = priority.Auth - 50

// Plugin is the session gate. Build it with [New] and attach it to a
// server or an app with Use.
type Plugin struct {
	// given is the configuration New was given, which Validate checks;
	// cfg is what the gate runs with (defaults filled in).
	given Config
	cfg   Config
	// client is the Redis client New built from Config.Redis, for Close.
	client   *redis.Client
	store    Store
	peek     Peeker
	local    bool // the store is *Memory: no timeout
	key      func(*flows.Request) string
	gated    map[string]bool // tools that need a ready session, besides RequireAll's
	exempt   map[string]bool
	priority int
	timeout  time.Duration
	blocked  func(Block) string
	next     func(Transition, *Config) string

	logger  atomic.Pointer[slog.Logger]
	srv     atomic.Pointer[framework.Server]
	lastLog atomic.Int64
	dropped atomic.Int64

	// seen is the state the check read, for the record after the call.
	seen flows.Key[seen]
	// moves are the transitions of a run.
	moves flows.Key[[]Transition]
}

// Plugin is a framework.Plugin and, so that tools/list stays shared
// while nothing is unlisted, not a framework.Visibility (see unlister).
var _ framework.Plugin = (*Plugin)(nil)

type seen struct {
	key   string
	state State
}

// New returns the session gate configured by cfg, which is validated (see
// [Config.Validate]) when the plugin is attached. With Config.Redis and no
// Config.Store it builds a Redis client and store (it does not connect:
// the first gated call does); Config.SessionKey and Config.Messages stand
// for Key, Blocked and Next when those are nil.
func New(cfg Config) *Plugin {
	cfg.Requires, cfg.Exempt = slices.Clone(cfg.Requires), slices.Clone(cfg.Exempt)
	if cfg.Redis != nil {
		r := *cfg.Redis
		cfg.Redis = &r
	}
	if cfg.Messages != nil {
		m := *cfg.Messages
		cfg.Messages = &m
	}
	p := &Plugin{given: cfg, cfg: cfg, store: cfg.Store, key: cfg.Key, priority: cfg.Priority, timeout: cfg.Timeout,
		blocked: cfg.Blocked, next: cfg.Next,
		seen: flows.NewKey[seen]("sessiongate.seen"), moves: flows.NewKey[[]Transition]("sessiongate.transitions")}
	if p.cfg.InitTool == "" {
		p.cfg.InitTool = DefaultInitTool
	}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.store == nil && cfg.Redis != nil && cfg.Redis.valid() {
		p.store, p.client = cfg.Redis.store(p.timeout, cfg.Idle)
	}
	if p.store == nil {
		// Also when Config.Redis is invalid: Attach reports it.
		p.store = NewMemory(&MemoryOptions{Idle: cfg.Idle})
	}
	_, p.local = p.store.(*Memory)
	p.peek, _ = p.store.(Peeker)
	if p.key == nil {
		p.key, _ = keyFunc(cfg.SessionKey)
	}
	if p.key == nil {
		p.key = BySession // Attach reports the bad key
	}
	if p.priority == 0 {
		p.priority = DefaultPriority
	}
	if p.blocked == nil && cfg.Messages != nil {
		p.blocked = cfg.Messages.blockedText(cfg.ReadyTool)
	}
	if p.blocked == nil {
		p.blocked = DefaultBlocked
	}
	if p.next == nil && cfg.Messages != nil {
		p.next = cfg.Messages.nextText()
	}
	if p.next == nil {
		p.next = DefaultNext
	}
	p.gated = setOf(cfg.Requires)
	p.exempt = setOf(cfg.Exempt)
	p.logger.Store(slog.New(slog.DiscardHandler))
	return p
}

// Close closes the Redis client New built from Config.Redis, if any; a
// Store given in Go is the caller's to close. Gated calls decided after
// Close fail as the store's failures do (see Config.OnStoreError).
func (p *Plugin) Close() error {
	if p.client == nil {
		return nil
	}
	return p.client.Close()
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Name returns "sessiongate".
func (p *Plugin) Name() string { return Name }

// Store returns the store the plugin uses.
func (p *Plugin) Store() Store { return p.store }

// Attach validates the configuration and registers the gate's hooks: a
// tools:call-tool beforeValidation hook named "check" that refuses calls
// of gated tools in sessions that are not ready, and an afterExecute hook
// named "record" that moves the session forward after a successful call.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.given.Validate(); err != nil {
		return err
	}
	logger := p.cfg.Logger
	if logger == nil {
		logger = pc.Server.Logger()
	}
	p.logger.Store(logger)
	p.srv.Store(pc.Server)
	if p.cfg.Unlist {
		// A plugin of its own, so that the gate is a Visibility (which
		// makes every list private to its caller) only when it unlists.
		var r interface {
			Use(...framework.Plugin) error
		} = pc.Server
		if pc.App != nil {
			r = pc.App
		}
		if err := r.Use(unlister{p}); err != nil {
			return err
		}
	}
	return pc.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Priority: p.priority, Name: "check", Fn: p.check},
		// Last in afterExecute: after every hook that may rewrite the
		// result into an error.
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Priority: priority.Min, Name: "record", Fn: p.record},
	)
}

// Check reports configuration problems that can only be seen once the
// server has started: a tool of InitTool, ReadyTool, Requires or Exempt
// that the server does not have, as [Config.Validate] reports its errors
// (Field "requires[0]"…). Call it after the server's Start (and, with a
// gateway, after its upstreams are mounted).
func (p *Plugin) Check() error {
	srv := p.srv.Load()
	if srv == nil {
		return errors.New("sessiongate: the plugin is not attached to a started server (srv.Use(plugin), then srv.Start)")
	}
	var errs []error
	check := func(field, name string) {
		if name == "" {
			return
		}
		if _, ok := srv.Tool(name); !ok {
			errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf("the server has no tool %q", name)})
		}
	}
	check("init_tool", p.cfg.InitTool)
	check("ready_tool", p.cfg.ReadyTool)
	for i, name := range p.cfg.Requires {
		check(fmt.Sprintf("requires[%d]", i), name)
	}
	for i, name := range p.cfg.Exempt {
		check(fmt.Sprintf("exempt[%d]", i), name)
	}
	return errors.Join(errs...)
}

// need returns the state a call of the tool named name needs (Ready for
// a gated tool, Initialized for the ready tool), and whether it needs one.
func (p *Plugin) need(name string) (State, bool) {
	switch {
	case name == p.cfg.InitTool:
		return 0, false
	case name == p.cfg.ReadyTool:
		return Initialized, true
	case p.gated[name], p.cfg.RequireAll && !p.exempt[name]:
		return Ready, true
	}
	return 0, false
}

// check refuses a call whose tool needs a state the session has not
// reached.
func (p *Plugin) check(c *flows.Context) error {
	name := c.Entity().Name
	need, gated := p.need(name)
	if !gated {
		return nil
	}
	key := p.key(c.Request())
	var st State
	var err error
	if key == "" {
		err = errNoKey
	} else {
		st, err = p.load(c.Context(), key)
	}
	if err != nil {
		if cerr := c.Context().Err(); cerr != nil {
			return cerr // the request was cancelled: not the store's fault
		}
		p.logFailure(c, err)
		if p.cfg.OnStoreError == flows.FailOpen {
			return nil
		}
		return &UnavailableError{Err: err}
	}
	p.seen.Set(c, seen{key: key, state: st})
	if st >= need {
		return nil
	}
	b := Block{Tool: name, State: st, Call: p.cfg.InitTool}
	if st >= Initialized && p.cfg.ReadyTool != "" {
		b.Call = p.cfg.ReadyTool
	}
	return &BlockedError{Block: b, Text: p.blocked(b)}
}

// record moves the session forward after a successful call of the init
// tool, the ready tool, or a gated tool in a ready session, records the
// transitions, and adds the Next text to the result.
func (p *Plugin) record(c *flows.Context) error {
	if res, ok := c.Output().(*mcp.CallToolResult); ok && res != nil && res.IsError {
		return nil
	}
	name := c.Entity().Name
	var to State
	s, checked := p.seen.Get(c)
	switch {
	case name == p.cfg.InitTool:
		to = Initialized
		if p.cfg.ReadyTool == "" {
			to = Ready
		}
		s.key = p.key(c.Request())
	case name == p.cfg.ReadyTool && checked:
		to = Ready
	case checked && s.state == Ready:
		to = Working
	default:
		return nil
	}
	if s.key == "" {
		p.logFailure(c, errNoKey)
		return nil
	}
	from, err := p.advance(c.Context(), s.key, to)
	if err != nil {
		p.logFailure(c, err)
		return nil
	}
	for st := from; st < to; st++ {
		t := Transition{Key: s.key, Tool: name, Request: c.Request().ID, From: st, To: st + 1}
		moves, _ := p.moves.Get(c)
		p.moves.Set(c, append(moves, t))
		if p.cfg.OnTransition != nil {
			p.cfg.OnTransition(t)
		}
		if err := framework.AddContext(c, p.next(t, &p.cfg)); err != nil {
			return err
		}
	}
	return nil
}

// Transitions returns the state transitions the run c caused so far: for
// hooks that run after the gate's record hook (afterExecute, at
// priority.Min), such as finally hooks.
func (p *Plugin) Transitions(c *flows.Context) []Transition {
	t, _ := p.moves.Get(c)
	return t
}

// load and advance call the store, bounded by the timeout unless the
// store is in memory.
func (p *Plugin) load(ctx context.Context, key string) (State, error) {
	if p.local {
		return p.store.Load(ctx, key)
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.store.Load(ctx, key)
}

func (p *Plugin) advance(ctx context.Context, key string, to State) (State, error) {
	if p.local {
		return p.store.Advance(ctx, key, to)
	}
	// A call that succeeded is recorded even when its client has gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	return p.store.Advance(ctx, key, to)
}

// logFailure logs a store failure, at most once a second.
func (p *Plugin) logFailure(c *flows.Context, err error) {
	now := time.Now().UnixNano()
	last := p.lastLog.Load()
	if now-last < int64(time.Second) || !p.lastLog.CompareAndSwap(last, now) {
		p.dropped.Add(1)
		return
	}
	p.logger.Load().LogAttrs(c.Context(), slog.LevelError, "sessiongate: cannot read or record the session's state",
		slog.String("tool", c.Entity().Name),
		slog.String("policy", p.cfg.OnStoreError.String()),
		slog.String("error", err.Error()),
		slog.Int64("unlogged_failures", p.dropped.Swap(0)))
}
