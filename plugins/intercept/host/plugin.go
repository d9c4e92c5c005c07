package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
	"github.com/hookflow/hookflow/stages"
)

// Config configures the host plugin.
type Config struct {
	// Name is the plugin's name (default "interceptors").
	Name string
	// Interceptors are served in this order (the order of
	// interceptors/list); more can be added with [Plugin.Add] until the
	// server starts.
	Interceptors []Interceptor
	// Timeout bounds an invocation whose invoker sets no timeoutMs; 0
	// means no bound. An invocation past its bound is cancelled and
	// answered with the SEP's timeout error.
	Timeout time.Duration
	// Logger receives panics of interceptor functions; nil uses the
	// server's logger.
	Logger *slog.Logger
}

// Plugin serves interceptors on a hookflow server: it answers
// interceptors/list and interceptor/invoke, and declares the interceptors
// extension at initialize. Attach it to the server (not to an app: the
// methods are the server's).
type Plugin struct {
	mu      sync.Mutex
	cfg     Config
	added   []Interceptor
	started bool

	// Set at Attach, read-only afterwards.
	served []*served
	byName map[string]*served
	logger *slog.Logger
}

// served is one interceptor as the host serves it.
type served struct {
	ic     Interceptor
	desc   wire.Interceptor
	config *jsonschema.Resolved // nil: any config
}

// New returns a host plugin configured by cfg; the interceptors are checked
// at Attach.
func New(cfg Config) *Plugin { return &Plugin{cfg: cfg} }

// Name returns Config.Name, or "interceptors".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "interceptors"
}

// Add adds interceptors to serve, after those of the configuration and
// of earlier calls. It fails once the server has started.
func (p *Plugin) Add(ics ...Interceptor) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return errors.New("host: Add after the server started")
	}
	p.added = append(p.added, ics...)
	return nil
}

// Interceptors returns the descriptors the host serves, as
// interceptors/list returns them; nil before the server starts.
func (p *Plugin) Interceptors() []wire.Interceptor {
	out := make([]wire.Interceptor, len(p.served))
	for i, s := range p.served {
		out[i] = s.desc
	}
	return out
}

// Attach checks the interceptors and registers the two methods and the
// initialize hook that declares the extension.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if pc.App != nil {
		return errors.New("attach the interceptor host to the server, not to an app: interceptors/list and interceptor/invoke are the server's methods")
	}
	p.mu.Lock()
	p.started = true
	all := slices.Concat(p.cfg.Interceptors, p.added)
	p.mu.Unlock()
	if p.cfg.Timeout < 0 {
		return fmt.Errorf("Config.Timeout: must not be negative, got %v", p.cfg.Timeout)
	}
	p.logger = p.cfg.Logger
	if p.logger == nil {
		p.logger = pc.Server.Logger()
	}
	var errs []error
	p.byName = map[string]*served{}
	var events []string
	for n, ic := range all {
		if err := ic.check(); err != nil {
			errs = append(errs, fmt.Errorf("interceptor %d (%q): %w", n, ic.spec.Name, err))
			continue
		}
		if p.byName[ic.spec.Name] != nil {
			errs = append(errs, fmt.Errorf("interceptor %q is served twice: names are unique within a host", ic.spec.Name))
			continue
		}
		s := &served{ic: ic, desc: ic.spec.descriptor(ic.Type())}
		if len(ic.spec.ConfigSchema) > 0 {
			r, err := resolveConfigSchema(ic.spec.ConfigSchema)
			if err != nil {
				errs = append(errs, fmt.Errorf("interceptor %q: ConfigSchema: %w", ic.spec.Name, err))
				continue
			}
			s.config = r
		}
		p.byName[ic.spec.Name] = s
		p.served = append(p.served, s)
		for _, e := range ic.spec.Events {
			if !slices.Contains(events, e) {
				events = append(events, e)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	sdk := pc.Server.SDK()
	if err := mcp.AddReceivingCustomMethod(sdk, wire.MethodList, p.list); err != nil {
		return err
	}
	// Both spellings of invoke, until the working group settles on one.
	for _, m := range []string{wire.MethodInvoke, wire.MethodInvokePlural} {
		if err := mcp.AddReceivingCustomMethod(sdk, m, p.invoke); err != nil {
			return err
		}
	}
	settings := map[string]any{"supportedEvents": events}
	declare := flows.On(stages.AfterExecute, func(c flows.Initialize) error {
		if caps := c.Capabilities(); caps != nil {
			caps.AddExtension(wire.Extension, settings)
		}
		return nil
	})
	declare.Name = "declare-extension"
	return pc.Hook(declare)
}

func resolveConfigSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`the SEP restricts it to an object schema ("type": "object"), got type %q`, s.Type)
	}
	return s.Resolve(nil)
}

// list answers interceptors/list.
func (p *Plugin) list(_ context.Context, _ *mcp.ServerSession, params *wire.ListParams) (*wire.ListResult, error) {
	res := &wire.ListResult{Interceptors: []wire.Interceptor{}}
	event := ""
	if params != nil {
		event = params.Event
	}
	if wire.IsPattern(event) {
		return nil, wire.InvalidParams(fmt.Sprintf("event %q is a pattern; interceptors/list filters by one event name (leave it out to list all)", event))
	}
	for _, s := range p.served {
		if event == "" || matches(&s.desc, event) {
			res.Interceptors = append(res.Interceptors, s.desc)
		}
	}
	return res, nil
}

func matches(d *wire.Interceptor, event string) bool {
	for _, h := range d.Hooks {
		if wire.MatchAny(h.Events, event) {
			return true
		}
	}
	return false
}

// invoke answers interceptor/invoke.
func (p *Plugin) invoke(ctx context.Context, _ *mcp.ServerSession, params *wire.InvokeParams) (*wire.Result, error) {
	if params == nil || params.Name == "" {
		return nil, wire.InvalidParams("name is required")
	}
	s := p.byName[params.Name]
	if s == nil {
		return nil, wire.UnknownName(params.Name)
	}
	if _, err := wire.ParsePhase(string(params.Phase)); err != nil {
		return nil, wire.InvalidParams(err.Error())
	}
	if params.Event == "" {
		return nil, wire.InvalidParams("event is required")
	}
	if len(params.Payload) == 0 {
		return nil, wire.InvalidParams("payload is required")
	}
	if !s.desc.Covers(params.Event, params.Phase) {
		return nil, wire.HookNotAdvertised(&s.desc, params.Event, params.Phase)
	}
	if s.config != nil {
		var cfg any = map[string]any{}
		if params.Config != nil {
			cfg = params.Config
		}
		if err := s.config.Validate(cfg); err != nil {
			return nil, wire.InvalidParams(fmt.Sprintf("config: %v", err))
		}
	}
	timeout := p.cfg.Timeout
	if params.TimeoutMs > 0 {
		timeout = time.Duration(params.TimeoutMs) * time.Millisecond
	}
	inv := &Invocation{Name: params.Name, Event: params.Event, Phase: params.Phase, Payload: params.Payload,
		Config: params.Config, Context: params.Context}
	start := time.Now()
	out, err := p.run(ctx, s, inv, timeout)
	if err != nil {
		return nil, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	out.Interceptor, out.Type, out.Phase, out.DurationMs = s.desc.Name, s.desc.Type, params.Phase, &ms
	return out, nil
}

// run calls the interceptor's function, bounded by timeout when it is not
// 0: past it, the function's context is cancelled and the invocation is
// answered with the timeout error, whether the function has returned or
// not.
func (p *Plugin) run(ctx context.Context, s *served, inv *Invocation, timeout time.Duration) (*wire.Result, error) {
	if timeout <= 0 {
		return p.call(ctx, s, inv)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer cancel()
	type answer struct {
		res *wire.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := p.call(ctx, s, inv)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		if context.Cause(ctx) == errTimedOut {
			return nil, wire.TimedOut(s.desc.Name, timeout.Milliseconds(), inv.Phase)
		}
		return a.res, a.err
	case <-ctx.Done():
		if context.Cause(ctx) == errTimedOut {
			return nil, wire.TimedOut(s.desc.Name, timeout.Milliseconds(), inv.Phase)
		}
		return nil, ctx.Err()
	}
}

var errTimedOut = errors.New("interceptor timed out")

// call runs the function and turns its answer into a result. An error or
// a panic is an execution failure (-32603), never a verdict.
func (p *Plugin) call(ctx context.Context, s *served, inv *Invocation) (res *wire.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			p.logger.LogAttrs(ctx, slog.LevelError, "host: interceptor panicked",
				slog.String("interceptor", s.desc.Name), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			res, err = nil, wire.Failed(s.desc.Name, "the interceptor panicked")
		}
	}()
	if s.ic.validate != nil {
		v, err := s.ic.validate(ctx, inv)
		if err != nil {
			return nil, wire.Failed(s.desc.Name, err.Error())
		}
		valid := v.Valid
		return &wire.Result{Valid: &valid, Severity: v.Severity, Messages: v.Messages, Suggestions: v.Suggestions, Info: v.Info}, nil
	}
	m, err := s.ic.mutate(ctx, inv)
	if err != nil {
		return nil, wire.Failed(s.desc.Name, err.Error())
	}
	modified := m.Modified
	payload := inv.Payload
	if modified {
		if !json.Valid(m.Payload) {
			return nil, wire.Failed(s.desc.Name, "the mutator returned a payload that is not JSON")
		}
		payload = m.Payload
	}
	return &wire.Result{Modified: &modified, Payload: payload, Info: m.Info}, nil
}

var _ framework.Plugin = (*Plugin)(nil)
