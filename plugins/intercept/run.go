package intercept

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// runState is what the plugin's hooks share during one run: one pass state
// per phase.
type runState struct {
	phases [2]passState
}

func phaseIndex(p wire.Phase) int {
	if p == wire.Response {
		return 1
	}
	return 0
}

// passState is one pass's progress.
type passState struct {
	// started: the payload of the pass was taken (current holds it).
	started bool
	// current is the payload as the pass stands: the snapshot validators
	// see; the mutators' tentative payload.
	current json.RawMessage
	// commit replaces the run's input or output with the mutated payload;
	// set by the last mutator that changed it, run after the last mutator.
	commit func()
	// verdicts are the validators' outcomes, once validated.
	validated bool
	verdicts  []verdict
	// ictx is the invocation context sent with every invocation.
	ictx *wire.InvocationContext
}

// verdict is the outcome of one invocation.
type verdict struct {
	outcome Outcome
	res     *wire.Result
	err     error
	took    time.Duration
}

// start takes the pass's payload, once.
func (ps *pass) start(c *flows.Context, st *passState) error {
	if st.started {
		return nil
	}
	var (
		payload json.RawMessage
		err     error
	)
	if ps.phase == wire.Request {
		payload, err = requestPayload(c, ps.event)
	} else {
		payload, err = responsePayload(c)
	}
	if err != nil {
		return fmt.Errorf("intercept: the %s payload of %s: %w", ps.phase, ps.event, err)
	}
	st.started, st.current = true, payload
	st.ictx = invocationContext(c)
	return nil
}

// invocationContext tells the interceptor who the operation runs for, its
// trace and its session. The trace is the run's OpenTelemetry span when the
// run's context carries one (the otel plugin's), so that a host that traces
// can join it; otherwise traceId is the request ID hookflow minted (the
// audit event's request_id) and there is no spanId. The session is the
// SHA-256 of the transport's session ID, when the transport has one (see
// [SessionRef]). Claims are not sent: the interceptor gets no more than it
// needs to decide and to correlate.
func invocationContext(c *flows.Context) *wire.InvocationContext {
	r := c.Request()
	ic := &wire.InvocationContext{TraceID: r.ID, SessionID: SessionRef(r.SessionID), Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		Principal: &wire.Principal{Type: wire.PrincipalAnonymous}}
	if sc := trace.SpanContextFromContext(c.Context()); sc.IsValid() {
		ic.TraceID, ic.SpanID = sc.TraceID().String(), sc.SpanID().String()
	}
	if id := r.Principal(); id != "" {
		ic.Principal = &wire.Principal{Type: wire.PrincipalUser, ID: id}
	}
	return ic
}

// SessionRef returns what an invocation context carries as sessionId for
// the transport session ID id: its SHA-256 in hex, "" for none. Over
// streamable HTTP a session ID is enough to send requests in its session
// where no bearer token binds the session to a user, so hookflow does not
// hand it to another process; its hash correlates the invocations of one
// session as well, and an operator gets it from the audit event's
// session_id the same way.
func SessionRef(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// selected reports whether ic runs for c's request: the request's protocol
// version is in its compat range.
func selected(c *flows.Context, ic *interceptor) bool {
	return ic.desc.Compat.Includes(c.Request().ProtocolVersion)
}

// invoke calls ic with payload and classifies the answer.
func (p *Plugin) invoke(ctx context.Context, ic *interceptor, ps *pass, st *passState, payload json.RawMessage) verdict {
	params := &wire.InvokeParams{Name: ic.desc.Name, Event: ps.event, Phase: ps.phase, Payload: payload,
		Config: ic.config, Context: st.ictx}
	if ic.timeout > 0 {
		// The host stops at timeoutMs and answers with the SEP's timeout
		// error; the plugin's own deadline, a little later, covers a host
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
		err = malformed(ic, ps.phase, res)
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

// validate is a validator's hook: the first validator hook of a pass runs
// every validator of the pass concurrently on the same payload and waits
// for all of them; then each validator's hook reports its own verdict, so
// that the first blocking one (in hook order, never in completion order)
// decides the run.
func (p *Plugin) validate(ps *pass, j int) flows.HookFunc {
	return func(c *flows.Context) error {
		st := p.pass(c, ps.phase)
		if !st.validated {
			if err := ps.start(c, st); err != nil {
				return err
			}
			st.verdicts = p.validateAll(c, ps, st)
			st.validated = true
		}
		v := st.verdicts[j]
		return p.decide(c, ps, ps.validators[j], v)
	}
}

// validateAll invokes the pass's validators and returns their verdicts in
// hook order.
func (p *Plugin) validateAll(c *flows.Context, ps *pass, st *passState) []verdict {
	out := make([]verdict, len(ps.validators))
	ctx := c.Context()
	var wg sync.WaitGroup
	for i, ic := range ps.validators {
		if !selected(c, ic) {
			out[i] = verdict{outcome: Skipped}
			continue
		}
		if len(ps.validators) == 1 {
			out[i] = p.invoke(ctx, ic, ps, st, st.current)
			break
		}
		wg.Go(func() { out[i] = p.invoke(ctx, ic, ps, st, st.current) })
	}
	wg.Wait()
	for i, v := range out {
		p.record(c, ps, ps.validators[i], v)
	}
	return out
}

// mutate is a mutator's hook. Mutators run one after another on the
// pass's current payload; an active one's change becomes the current
// payload, which replaces the run's input or output only after the pass's
// last mutator (the pass is atomic: a mutator that fails closed blocks the
// run and nothing of the pass is applied).
func (p *Plugin) mutate(ps *pass, i int) flows.HookFunc {
	last := i == len(ps.mutators)-1
	ic := ps.mutators[i]
	return func(c *flows.Context) error {
		st := p.pass(c, ps.phase)
		if err := ps.start(c, st); err != nil {
			return err
		}
		var v verdict
		if !selected(c, ic) {
			v = verdict{outcome: Skipped}
		} else {
			v = p.invoke(c.Context(), ic, ps, st, st.current)
			v = p.apply(c, ps, ic, st, v)
		}
		p.record(c, ps, ic, v)
		if err := p.decide(c, ps, ic, v); err != nil {
			return err
		}
		if last && st.commit != nil {
			st.commit()
			st.commit = nil
		}
		return nil
	}
}

// apply takes an active mutator's answer into the pass: a change that
// cannot replace the run's input or output, or an unchanged payload that
// differs from the one sent, is a malformed result, routed as a failure.
func (p *Plugin) apply(c *flows.Context, ps *pass, ic *interceptor, st *passState, v verdict) verdict {
	switch v.outcome {
	case Modified:
		var commit func()
		var err error
		if ps.phase == wire.Request {
			commit, err = prepareRequest(c, ps.event, v.res.Payload)
		} else {
			commit, err = prepareResponse(c, v.res.Payload)
		}
		if err != nil {
			v.err, v.outcome = fmt.Errorf("malformed result: %w", err), failure(ic)
			return v
		}
		st.current, st.commit = v.res.Payload, commit
	case Unchanged:
		if !sameJSON(v.res.Payload, st.current) {
			v.err, v.outcome = errors.New("malformed result: modified is false, and the payload differs from the one sent"), failure(ic)
		}
	}
	return v
}

// decide turns a blocking verdict into the hook's error.
func (p *Plugin) decide(c *flows.Context, ps *pass, ic *interceptor, v verdict) error {
	if !v.outcome.Blocks() {
		return nil
	}
	e := &BlockedError{Interceptor: ic.id, Type: ic.desc.Type, Phase: ps.phase, Outcome: v.outcome, Err: v.err, explain: p.cfg.Explain}
	if v.res != nil {
		e.Messages = v.res.Messages
	}
	return e
}

// record records an invocation's decision on the run, for the readers of
// run data (an audit trail), and logs its failure.
func (p *Plugin) record(c *flows.Context, ps *pass, ic *interceptor, v verdict) {
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
	c.Decide(flows.Decision{By: ic.id, What: string(ic.desc.Type) + " " + string(ps.phase),
		Outcome: v.outcome.String(), Duration: v.took, Reason: reason})
	if v.err != nil {
		level := slog.LevelWarn
		if v.outcome == FailedClosed {
			level = slog.LevelError
		}
		p.logger.LogAttrs(c.Context(), level, "intercept: interceptor failed",
			slog.String("interceptor", ic.id), slog.String("flow", string(ps.flow)), slog.String("phase", string(ps.phase)),
			slog.String("outcome", v.outcome.String()), slog.String("request", c.Request().ID), slog.String("error", v.err.Error()))
	}
}

// pass returns the run's state of phase, creating the run's state.
func (p *Plugin) pass(c *flows.Context, phase wire.Phase) *passState {
	st, ok := p.state.Get(c)
	if !ok {
		st = &runState{}
		p.state.Set(c, st)
	}
	return &st.phases[phaseIndex(phase)]
}
