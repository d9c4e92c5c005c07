package intercept

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// core is what both sides share: the connections to the hosts, their
// interceptors with the invoker's policy applied, and how one invocation
// is sent, checked and routed (timeouts, failOpen, audit mode, malformed
// answers) and how it is recorded. The server side ([Plugin]) runs it in
// hooks of a flow; the sending side ([Chain]) around the requests a go-sdk
// client sends and receives.
type core struct {
	// cfg is the configuration with tokens and names resolved and the
	// defaults filled in by open.
	cfg    Config
	conns  []*conn
	ics    []*interceptor
	logger *slog.Logger
}

// open fills in cfg's defaults, connects to every host, lists its
// interceptors and applies the policy. A host it cannot reach or list, or
// a policy naming an interceptor no host lists, is an error (the
// connections are closed).
func (k *core) open(ctx context.Context, logger *slog.Logger) error {
	cfg := &k.cfg
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	} else if cfg.Timeout < 0 {
		cfg.Timeout = 0
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	k.logger = cfg.Logger
	if k.logger == nil {
		k.logger = logger
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hookflow-intercept"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.ListParams, *wire.ListResult](client, wire.MethodList); err != nil {
		return err
	}
	for _, m := range []string{wire.MethodInvoke, wire.MethodInvokePlural} {
		if err := mcp.AddSendingCustomMethod[*wire.InvokeParams, *wire.Result](client, m); err != nil {
			return err
		}
	}
	listed := make([][]wire.Interceptor, len(cfg.Servers))
	var errs []error
	for i, s := range cfg.Servers {
		c := newConn(s, client, cfg.ConnectTimeout, cfg.RetryAfter, k.logger)
		k.conns = append(k.conns, c)
		ds, err := c.list(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("Config.Servers[%d]: %w", i, err))
			continue
		}
		listed[i] = ds
	}
	if err := errors.Join(errs...); err != nil {
		k.close()
		return err
	}
	ics, skipped, err := resolve(cfg, k.conns, listed)
	for _, s := range skipped {
		k.logger.Warn("intercept: interceptor skipped: the SEP says to skip a descriptor it does not define", "why", s)
	}
	if err != nil {
		k.close()
		return err
	}
	k.ics = ics
	return nil
}

// close closes the connections to the hosts.
func (k *core) close() error {
	var errs []error
	for _, c := range k.conns {
		if err := c.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// call is what every invocation of one pass shares: the event and phase
// intercepted, and the invocation context.
type call struct {
	event string
	phase wire.Phase
	ictx  *wire.InvocationContext
}

// verdict is the outcome of one invocation.
type verdict struct {
	outcome Outcome
	res     *wire.Result
	err     error
	took    time.Duration
}

// invoke calls ic with payload and classifies the answer.
func (k *core) invoke(ctx context.Context, ic *interceptor, cl call, payload json.RawMessage) verdict {
	sent, back, err := shaped(ic.conn.srv.Payload, cl.phase, payload)
	if err != nil {
		return verdict{outcome: failure(ic), err: err}
	}
	params := &wire.InvokeParams{Name: ic.desc.Name, Event: cl.event, Phase: cl.phase, Payload: sent,
		Config: ic.config, Context: cl.ictx}
	if ic.timeout > 0 {
		// The host stops at timeoutMs and answers with the SEP's timeout
		// error; the invoker's own deadline, a little later, covers a host
		// that does not answer at all.
		params.TimeoutMs = max(1, ic.timeout.Milliseconds())
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, ic.timeout+max(50*time.Millisecond, ic.timeout/10), errNoAnswer)
		defer cancel()
	}
	start := time.Now()
	res, err := ic.conn.invoke(ctx, params)
	v := verdict{res: res, took: time.Since(start)}
	if err == nil {
		err = malformed(ic, cl.phase, res)
	}
	if err == nil && ic.desc.Type == wire.Mutation {
		res.Payload, err = back(res.Payload)
	}
	if err != nil {
		v.err = err
		v.outcome = failure(ic)
		return v
	}
	if ic.mode == wire.Audit {
		v.outcome = Audited
		return v
	}
	if ic.desc.Type == wire.Validation {
		switch {
		case *res.Valid:
			v.outcome = Allowed
		case res.Severity.Blocks():
			v.outcome = Blocked
		default:
			v.outcome = Warned
		}
		return v
	}
	if *res.Modified {
		v.outcome = Modified
	} else {
		v.outcome = Unchanged
	}
	return v
}

// validateAll invokes the validators vs concurrently on the same payload
// and returns their verdicts in the order of vs; skip says which are not
// invoked (Skipped).
func (k *core) validateAll(ctx context.Context, vs []*interceptor, cl call, payload json.RawMessage, skip func(*interceptor) bool) []verdict {
	out := make([]verdict, len(vs))
	var wg sync.WaitGroup
	for i, ic := range vs {
		if skip(ic) {
			out[i] = verdict{outcome: Skipped}
			continue
		}
		if len(vs) == 1 {
			out[i] = k.invoke(ctx, ic, cl, payload)
			break
		}
		wg.Go(func() { out[i] = k.invoke(ctx, ic, cl, payload) })
	}
	wg.Wait()
	return out
}

// mutate invokes the mutator ic on the pass's current payload and checks
// an active answer: a change must fit (fit checks that it can replace
// what the pass governs), an unchanged payload must be the one sent;
// either failure is a malformed result, routed by the interceptor's
// failOpen.
func (k *core) mutate(ctx context.Context, ic *interceptor, cl call, current json.RawMessage, fit func(json.RawMessage) error) verdict {
	v := k.invoke(ctx, ic, cl, current)
	switch v.outcome {
	case Modified:
		if err := fit(v.res.Payload); err != nil {
			v.err, v.outcome = fmt.Errorf("malformed result: %w", err), failure(ic)
		}
	case Unchanged:
		if !sameJSON(v.res.Payload, current) {
			v.err, v.outcome = errors.New("malformed result: modified is false, and the payload differs from the one sent"), failure(ic)
		}
	}
	return v
}

// failure routes an invocation failure by the interceptor's mode and
// fail-open policy.
func failure(ic *interceptor) Outcome {
	switch {
	case ic.mode == wire.Audit:
		return FailedAudit
	case ic.failOpen:
		return FailedOpen
	}
	return FailedClosed
}

// malformed checks a result against the invocation (the SEP's result-echo
// integrity): the interceptor's name, its advertised type, the phase, and
// the fields its type requires.
func malformed(ic *interceptor, phase wire.Phase, res *wire.Result) error {
	switch {
	case res.Interceptor != ic.desc.Name:
		return fmt.Errorf("malformed result: it is from interceptor %q", res.Interceptor)
	case res.Type != ic.desc.Type:
		return fmt.Errorf("malformed result: a %s result from a %s interceptor", res.Type, ic.desc.Type)
	case res.Phase != phase:
		return fmt.Errorf("malformed result: phase %q, invoked for %q", res.Phase, phase)
	case ic.desc.Type == wire.Validation && res.Valid == nil:
		return errors.New("malformed result: a validation without valid")
	case ic.desc.Type == wire.Mutation && (res.Modified == nil || len(res.Payload) == 0):
		return errors.New("malformed result: a mutation without modified and payload")
	}
	return nil
}

// blocked returns the error of a blocking verdict, nil for the others.
func (k *core) blocked(ic *interceptor, phase wire.Phase, v verdict) error {
	if !v.outcome.Blocks() {
		return nil
	}
	e := &BlockedError{Interceptor: ic.id, Type: ic.desc.Type, Phase: phase, Outcome: v.outcome, Err: v.err, explain: k.cfg.Explain}
	if v.res != nil {
		e.Messages = v.res.Messages
	}
	return e
}

// decision is the audit decision of one invocation: the interceptor, what
// it decided on ("validation request"), its outcome, its duration and its
// reason (messages, the failure, or for audit mode what it would have
// done).
func decision(ic *interceptor, phase wire.Phase, v verdict) flows.Decision {
	reason := ""
	switch {
	case v.err != nil:
		reason = v.err.Error()
	case v.res != nil && len(v.res.Messages) > 0:
		var parts []string
		for _, m := range v.res.Messages {
			s := m.Message
			if m.Path != "" {
				s = m.Path + ": " + s
			}
			parts = append(parts, s)
		}
		reason = strings.Join(parts, "; ")
	}
	if v.outcome == Audited && v.res != nil {
		// What the audit-mode interceptor would have done.
		shadow := "would allow"
		switch {
		case v.res.Modified != nil && *v.res.Modified:
			shadow = "would modify"
		case v.res.Modified != nil:
			shadow = "would leave unchanged"
		case !*v.res.Valid && v.res.Severity.Blocks():
			shadow = "would block"
		case !*v.res.Valid:
			shadow = "would warn"
		}
		reason = strings.TrimSuffix(shadow+": "+reason, ": ")
	}
	return flows.Decision{By: ic.id, What: string(ic.desc.Type) + " " + string(phase),
		Outcome: v.outcome.String(), Duration: v.took, Reason: reason}
}

// logFailure logs a failed invocation: an error when it blocks, a warning
// otherwise. attrs say where it ran.
func (k *core) logFailure(ctx context.Context, ic *interceptor, phase wire.Phase, v verdict, attrs ...slog.Attr) {
	if v.err == nil {
		return
	}
	level := slog.LevelWarn
	if v.outcome == FailedClosed {
		level = slog.LevelError
	}
	attrs = append([]slog.Attr{slog.String("interceptor", ic.id), slog.String("phase", string(phase))}, attrs...)
	attrs = append(attrs, slog.String("outcome", v.outcome.String()), slog.String("error", v.err.Error()))
	k.logger.LogAttrs(ctx, level, "intercept: interceptor failed", attrs...)
}
