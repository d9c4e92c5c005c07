package intercept

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Chain runs interceptors outside a hookflow server's flows: on what a Go
// host sends and receives through a go-sdk client (an agent, or a gateway
// calling its upstreams). It is driven by the same configuration as the
// [Plugin] (hosts over HTTP or stdio, or in process with
// [Server.Transport]; the invoker policy; timeouts, failOpen, audit mode
// and the mutators' order), and runs the same invocations; what differs
// is the direction, given wherever a chain runs: [Chain.SendingMiddleware]
// sends requests (mutate, then validate) and receives their results
// (validate, then mutate). Build it with [NewChain] and Close it when the
// client is done. A Chain is safe for concurrent use: every run has its
// own passes.
type Chain struct {
	k core
}

// NewChain checks cfg ([Config.Validate]), connects to every host, lists
// its interceptors and applies the policy, as the plugin does when it is
// attached; an unreachable host or a policy naming an interceptor no host
// lists is an error. ctx bounds the connections and lists only. Failures
// are logged to cfg.Logger, or slog.Default().
func NewChain(ctx context.Context, cfg Config) (*Chain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ch := &Chain{k: core{cfg: cfg.resolved()}}
	if err := ch.k.open(ctx, slog.Default()); err != nil {
		return nil, err
	}
	return ch, nil
}

// Close closes the connections to the hosts (stopping the commands of
// stdio hosts). Runs after Close fail, closed unless the interceptor's
// policy says otherwise.
func (ch *Chain) Close() error { return ch.k.close() }

// Call is one payload a chain runs on: one event, one phase.
type Call struct {
	// Event is the lifecycle event, an MCP method such as "tools/call".
	Event string
	// Phase is wire.Request or wire.Response.
	Phase wire.Phase
	// Payload is what the interceptors get: on a request, hookflow sends
	// the method and params ({"method": "tools/call", "params": {…}}); on
	// a response, the result.
	Payload json.RawMessage
	// ProtocolVersion is the MCP protocol version of the session the
	// payload belongs to: an interceptor whose compat range excludes it is
	// skipped. "" runs every interceptor.
	ProtocolVersion string
	// Context is sent with every invocation; nil sends an anonymous
	// principal and the invoker's clock.
	Context *wire.InvocationContext
}

// Pass is what one run of a chain did.
type Pass struct {
	// Payload is the payload after the pass: the last active mutator's,
	// or Call.Payload when none changed it or the pass was blocked (a
	// pass is atomic).
	Payload json.RawMessage
	// Modified reports whether an active mutator changed the payload and
	// the pass was not blocked.
	Modified bool
	// Decisions are the invocations' decisions, validators' and mutators'
	// in the order they ran (a pass's validators run at the same time:
	// theirs are in configuration order).
	Decisions []flows.Decision
}

// Run runs the interceptors that hook call's event and phase on its
// payload, in dir's order: Receive validates, then mutates; Send mutates,
// then validates. Validators run at the same time on the same payload;
// mutators one after another, in the SEP's order. A blocking validator or
// a mutator that fails closed stops the pass: Run returns the pass so far
// and a [*BlockedError]. Each decision also goes to Config.Decisions.
func (ch *Chain) Run(ctx context.Context, dir Direction, call Call) (*Pass, error) {
	return ch.run(ctx, dir, call, func(payload json.RawMessage) error {
		if !json.Valid(payload) {
			return errors.New("the payload is not JSON")
		}
		return nil
	})
}

// run is Run with fit, the check that a mutator's payload can replace
// call.Payload (a malformed result when it cannot).
func (ch *Chain) run(ctx context.Context, dir Direction, call Call, fit func(json.RawMessage) error) (*Pass, error) {
	if dir != Receive && dir != Send {
		return nil, fmt.Errorf("intercept: %v is not a direction: want intercept.Receive or intercept.Send", dir)
	}
	if _, err := wire.ParsePhase(string(call.Phase)); err != nil {
		return nil, fmt.Errorf("intercept: %w", err)
	}
	ictx := call.Context
	if ictx == nil {
		ictx = &wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalAnonymous}}
	}
	if ictx.Timestamp == "" {
		c := *ictx
		c.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
		ictx = &c
	}
	cl := callOf(call, ictx)
	vs, ms := split(ch.k.ics, call.Event, call.Phase)
	skip := func(ic *interceptor) bool { return !ic.desc.Compat.Includes(call.ProtocolVersion) }
	p := &Pass{Payload: call.Payload}
	current, modified := call.Payload, false
	validate := func() error {
		if len(vs) == 0 {
			return nil
		}
		verdicts := ch.k.validateAll(ctx, vs, cl, current, skip)
		for i, v := range verdicts {
			ch.record(ctx, p, call, vs[i], v)
		}
		for i, v := range verdicts {
			if err := ch.k.blocked(vs[i], call.Phase, v); err != nil {
				return err
			}
		}
		return nil
	}
	mutate := func() error {
		for _, ic := range ms {
			v := verdict{outcome: Skipped}
			if !skip(ic) {
				v = ch.k.mutate(ctx, ic, cl, current, fit)
			}
			if v.outcome == Modified {
				current, modified = v.res.Payload, true
			}
			ch.record(ctx, p, call, ic, v)
			if err := ch.k.blocked(ic, call.Phase, v); err != nil {
				return err
			}
		}
		return nil
	}
	steps := []func() error{validate, mutate}
	if dir == Send {
		steps[0], steps[1] = mutate, validate
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return p, err
		}
	}
	p.Payload, p.Modified = current, modified
	return p, nil
}

func callOf(c Call, ictx *wire.InvocationContext) call {
	return call{event: c.Event, phase: c.Phase, ictx: ictx}
}

// record adds an invocation's decision to the pass, hands it to
// Config.Decisions, and logs its failure.
func (ch *Chain) record(ctx context.Context, p *Pass, call Call, ic *interceptor, v verdict) {
	d := decision(ic, call.Phase, v)
	p.Decisions = append(p.Decisions, d)
	if f := ch.k.cfg.Decisions; f != nil {
		f(ctx, call.Event, d)
	}
	ch.k.logFailure(ctx, ic, call.Phase, v, slog.String("event", call.Event))
}
