package intercept

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
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
			skip := func(ic *interceptor) bool { return !selected(c, ic) }
			st.verdicts = p.k.validateAll(c.Context(), ps.validators, ps.call(st), st.current, skip)
			for i, v := range st.verdicts {
				p.record(c, ps, ps.validators[i], v)
			}
			st.validated = true
		}
		return p.k.blocked(ps.validators[j], ps.phase, st.verdicts[j])
	}
}

// call is what the pass's invocations share in this run.
func (ps *pass) call(st *passState) call {
	return call{event: ps.event, phase: ps.phase, ictx: st.ictx}
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
			var commit func()
			fit := func(payload json.RawMessage) (err error) {
				if ps.phase == wire.Request {
					commit, err = prepareRequest(c, ps.event, payload)
				} else {
					commit, err = prepareResponse(c, payload)
				}
				return err
			}
			v = p.k.mutate(c.Context(), ic, ps.call(st), st.current, fit)
			if v.outcome == Modified {
				st.current, st.commit = v.res.Payload, commit
			}
		}
		p.record(c, ps, ic, v)
		if err := p.k.blocked(ic, ps.phase, v); err != nil {
			return err
		}
		if last && st.commit != nil {
			st.commit()
			st.commit = nil
		}
		return nil
	}
}

// record records an invocation's decision on the run, for the readers of
// run data (an audit trail), and logs its failure.
func (p *Plugin) record(c *flows.Context, ps *pass, ic *interceptor, v verdict) {
	c.Decide(decision(ic, ps.phase, v))
	p.k.logFailure(c.Context(), ic, ps.phase, v, slog.String("flow", string(ps.flow)), slog.String("request", c.Request().ID))
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
