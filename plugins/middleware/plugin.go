package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"
	"unicode"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Config configures a chain of middlewares.
//
// A middleware is Go code (its handlers are funcs), so the chain is
// Go-only: a configuration file can set the scalar fields of a chain a Go
// program builds (Name, Priority, AsyncTimeout), never the chain itself.
// A file section without a chain in Go configures a plugin that does
// nothing.
type Config struct {
	// Name is the plugin's name, unique where it is attached and part of
	// its hooks' IDs: no '/' and no white space. Default "middleware".
	Name string `yaml:"name"`
	// Chain is the middlewares, head first. Go-only: handlers are funcs.
	Chain []Middleware `yaml:"-"`
	// Priority is where the chain runs in beforeExecute, afterExecute and
	// onError, a hook priority in [priority.Min, priority.Max] (default 0,
	// priority.Default): its request handlers after auth, rate limits and
	// remote interceptors, its result handlers before the interceptors of
	// the response.
	Priority int `yaml:"priority"`
	// AsyncTimeout bounds the background part of a ContinueAsync, a
	// duration such as "30s" (default DefaultAsyncTimeout, one minute);
	// it is cancelled when the bound passes. Must not be negative.
	AsyncTimeout time.Duration `yaml:"async_timeout"`
}

// Validate checks c without a server: a usable name, a priority in range,
// a non-negative AsyncTimeout, and a chain whose middlewares have unique
// names and handle known flows, each once. It returns nil or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path ("async_timeout", "chain[0].flows[1].flow").
// Attach calls it.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Name != "" && strings.ContainsFunc(c.Name, func(r rune) bool { return r == '/' || unicode.IsSpace(r) }) {
		bad("name", "%q must not hold '/' or white space: the name is part of the plugin's hook IDs", c.Name)
	}
	if err := priority.Check(c.Priority); err != nil {
		bad("priority", "%v", err)
	}
	if c.AsyncTimeout < 0 {
		bad("async_timeout", "must not be negative, got %v", c.AsyncTimeout)
	}
	names := map[string]bool{}
	for i, m := range c.Chain {
		switch {
		case m.Name == "":
			bad(fmt.Sprintf("chain[%d].name", i), "must not be empty: a middleware's name names its hooks")
		case names[m.Name]:
			bad(fmt.Sprintf("chain[%d].name", i), "%q names two middlewares: names are unique within a chain", m.Name)
		}
		names[m.Name] = true
		seen := map[flows.ID]bool{}
		for j, h := range m.Flows {
			at := fmt.Sprintf("chain[%d].flows[%d].flow", i, j)
			if _, err := flows.Parse(string(h.Flow)); err != nil {
				bad(at, "%v", err)
				continue
			}
			if seen[h.Flow] {
				bad(at, "middleware %q handles %s twice: give it one Handlers per flow", m.Name, h.Flow)
			}
			seen[h.Flow] = true
		}
	}
	return errors.Join(errs...)
}

// DefaultAsyncTimeout is the default of Config.AsyncTimeout.
const DefaultAsyncTimeout = time.Minute

// Plugin runs a chain of Civic-style middlewares as hooks. Build it with
// [New] and attach it to a server or an app.
type Plugin struct {
	cfg   Config
	state flows.Key[*run]

	owner  string
	runner *flows.Runner
	logger *slog.Logger
	// chains are the middlewares with handlers, per flow (by
	// flows.ID.Index), in chain order; tails[f][i] is the plan of the
	// background run of a ContinueAsync by the i-th of them.
	chains [flows.Count][]*link
	tails  [flows.Count][]*flows.Plan
}

// link is one middleware's handlers in one flow's chain.
type link struct {
	name  string
	index int // in the flow's chain
	h     Handlers
}

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

// New returns the plugin; the configuration is checked at Attach
// ([Config.Validate]).
func New(cfg Config) *Plugin { return &Plugin{cfg: cfg, state: flows.NewKey[*run]("middleware.run")} }

// Name returns Config.Name, or "middleware".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "middleware"
}

// Attach checks the chain and registers, for every flow a middleware
// handles, one hook per middleware in beforeExecute (in chain order),
// afterExecute and onError (in reverse order).
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.cfg.Validate(); err != nil {
		return err
	}
	if p.cfg.AsyncTimeout == 0 {
		p.cfg.AsyncTimeout = DefaultAsyncTimeout
	}
	p.owner, p.runner, p.logger = pc.Scope.Path(), pc.Server.Runner(), pc.Server.Logger()
	for _, m := range p.cfg.Chain {
		for _, h := range m.Flows {
			if h.Request == nil && h.Result == nil && h.Error == nil {
				continue
			}
			f := h.Flow.Index()
			p.chains[f] = append(p.chains[f], &link{name: m.Name, index: len(p.chains[f]), h: h})
		}
	}
	var hooks []flows.Hook
	for f, chain := range p.chains {
		if len(chain) == 0 {
			continue
		}
		flow := flows.All()[f].ID
		for _, e := range p.entries(flow, chain, 0) {
			hooks = append(hooks, flows.Hook{Flow: flow, Stage: e.stage, Priority: p.cfg.Priority, Name: e.name, Fn: e.fn})
		}
		p.tails[f] = make([]*flows.Plan, len(chain))
		for i := range chain {
			p.tails[f][i] = p.tailPlan(flow, chain, i+1)
		}
	}
	return pc.Hook(hooks...)
}

// entry is one hook of a chain.
type entry struct {
	stage stages.Stage
	name  string
	fn    flows.HookFunc
}

// entries returns the hooks of the chain from low on: its request hooks in
// chain order, its result and error hooks in reverse order. low is 0 for
// the server's runs and the position after the middleware that answered
// for the background run of a ContinueAsync.
func (p *Plugin) entries(flow flows.ID, chain []*link, low int) []entry {
	var out []entry
	for _, l := range chain[low:] {
		out = append(out, entry{stages.BeforeExecute, l.name, p.request(flow, chain, l)})
	}
	for i := len(chain) - 1; i >= low; i-- {
		l := chain[i]
		out = append(out, entry{stages.AfterExecute, l.name, p.result(chain, l, low)},
			entry{stages.OnError, l.name, p.failure(chain, l, low)})
	}
	return out
}

// tailPlan is the plan of the background run that finishes the chain after
// a ContinueAsync: the hooks of the middlewares from low on.
func (p *Plugin) tailPlan(flow flows.ID, chain []*link, low int) *flows.Plan {
	plan := &flows.Plan{Flow: flow}
	for _, e := range p.entries(flow, chain, low) {
		plan.Stages[e.stage] = append(plan.Stages[e.stage], flows.PlanEntry{
			ID: flows.HookID(p.owner, flow, e.stage, e.name), Priority: p.cfg.Priority, Fn: e.fn})
	}
	return plan
}

// run is the chain's state in one run.
type run struct {
	// seen is how many middlewares (from the chain's start) saw the
	// request: they, and only they, see its result or failure.
	seen int
	// unwound is set once a hook has walked the way out to the chain's
	// head on its own (after a switch between results and errors).
	unwound bool
}

func (p *Plugin) runOf(c *flows.Context) *run {
	st, ok := p.state.Get(c)
	if !ok {
		st = &run{}
		p.state.Set(c, st)
	}
	return st
}

// request is a middleware's beforeExecute hook.
func (p *Plugin) request(flow flows.ID, chain []*link, l *link) flows.HookFunc {
	return func(c *flows.Context) error {
		st := p.runOf(c)
		if l.h.Request == nil {
			st.seen = l.index + 1
			return nil
		}
		act, err := l.h.Request(c)
		if err != nil {
			return err // this middleware does not see its own failure
		}
		switch act.kind {
		case actRespond:
			c.Respond(act.out)
		case actAsync:
			if act.async == nil {
				return errors.New("middleware: ContinueAsync with a nil callback")
			}
			p.async(c, flow, l, act.async)
			c.Respond(act.out)
		default:
			st.seen = l.index + 1
		}
		return nil
	}
}

// result is a middleware's afterExecute hook. While results flow, it runs
// its middleware's result handler; when that fails, it walks the rest of
// the way out itself (error handlers, and result handlers again after a
// recovery) and ends the stage with the outcome.
func (p *Plugin) result(chain []*link, l *link, low int) flows.HookFunc {
	return func(c *flows.Context) error {
		st, ok := p.state.Get(c)
		if !ok || st.unwound {
			return nil
		}
		if l.index == low {
			// The head's hook ends the way out: a failure after it (the
			// output check) is not the chain's to handle.
			defer func() { st.unwound = true }()
		}
		if l.index >= st.seen || l.h.Result == nil {
			return nil
		}
		err := l.h.Result(c)
		if err == nil {
			return nil
		}
		st.unwound = true
		if err := p.walk(c, chain, l.index-1, low, err); err != nil {
			return err
		}
		return nil
	}
}

// failure is a middleware's onError hook. Its error handler may pass the
// failure on (the next hook sees it) or recover: then it walks the rest of
// the way out with result handlers itself, and answers with the outcome.
func (p *Plugin) failure(chain []*link, l *link, low int) flows.HookFunc {
	return func(c *flows.Context) error {
		st, ok := p.state.Get(c)
		if !ok || st.unwound || l.index >= st.seen || l.h.Error == nil {
			return nil
		}
		failed := c.Err()
		out, err := l.h.Error(c, failed)
		if err == failed {
			return nil // passed on as it was: the run's error and who decided it stay
		}
		if err != nil {
			return err
		}
		st.unwound = true
		c.SetOutput(out)
		if err := p.walk(c, chain, l.index-1, low, nil); err != nil {
			return err
		}
		c.Respond(c.Output())
		return nil
	}
}

// walk runs the way out from chain[from] down to chain[low], starting with
// err (error handlers) or nil (result handlers), switching as handlers
// fail or recover, and returns the error the walk ends with. A recovery
// sets the run's output.
func (p *Plugin) walk(c *flows.Context, chain []*link, from, low int, err error) error {
	for i := from; i >= low; i-- {
		h := chain[i].h
		if err == nil {
			if h.Result != nil {
				err = h.Result(c)
			}
			continue
		}
		if h.Error != nil {
			out, e := h.Error(c, err)
			if e == nil {
				c.SetOutput(out)
			}
			err = e
		}
	}
	return err
}

// async starts the background run that finishes the chain after l: the
// rest of the chain and the flow's steps, in a run of their own, whose
// outcome goes to done.
func (p *Plugin) async(c *flows.Context, flow flows.ID, l *link, done func(any, error)) {
	plan := p.tails[flow.Index()][l.index]
	req := *c.Request()
	input := c.Input()
	if e := c.Entity(); e != nil && e.Kind == flows.EntityTool {
		// A tool's run validates raw arguments: give it the typed input as
		// JSON, which it decodes again.
		b, err := json.Marshal(input)
		if err != nil {
			go done(nil, fmt.Errorf("middleware: encoding the input for the background run: %w", err))
			return
		}
		input = json.RawMessage(b)
	}
	run := flows.Run{Flow: flow, Entity: c.Entity(), Request: &req, Input: input, Arguments: c.Arguments(), Plan: plan, Steps: c.Steps()}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Context()), p.cfg.AsyncTimeout)
	go func() {
		defer cancel()
		out, err := p.runner.Run(ctx, run)
		defer func() {
			if v := recover(); v != nil {
				p.logger.Error("middleware: a ContinueAsync callback panicked", "middleware", l.name, "panic", v, "stack", string(debug.Stack()))
			}
		}()
		done(out, err)
	}()
}
