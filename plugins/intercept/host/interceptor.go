package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Phases says in which phases an interceptor runs.
type Phases uint8

// The phases, and both.
const (
	// OnRequest: the interceptor sees requests.
	OnRequest Phases = 1 << iota
	// OnResponse: the interceptor sees results.
	OnResponse
	// OnBoth: the interceptor sees requests and results.
	OnBoth = OnRequest | OnResponse
)

// String returns "request", "response" or "both".
func (p Phases) String() string {
	switch p {
	case OnRequest:
		return "request"
	case OnResponse:
		return "response"
	case OnBoth:
		return "both"
	}
	return fmt.Sprintf("Phases(%d)", uint8(p))
}

// ParsePhases reads "request", "response" or "both".
func ParsePhases(s string) (Phases, error) {
	switch s {
	case "request":
		return OnRequest, nil
	case "response":
		return OnResponse, nil
	case "both":
		return OnBoth, nil
	}
	return 0, fmt.Errorf("unknown phase %q (want request, response or both)", s)
}

// Spec describes an interceptor as its descriptor in interceptors/list
// shows it.
type Spec struct {
	// Name identifies the interceptor within the host; required.
	Name string
	// Version and Description are shown to invokers.
	Version, Description string
	// Events are the lifecycle events the interceptor applies to, e.g.
	// "tools/call", or "*" for all; required.
	Events []string
	// Phases are the phases it applies to; 0 means OnRequest.
	Phases Phases
	// Audit makes audit the author's default mode: invokers record the
	// result and never block or apply it.
	Audit bool
	// FailOpen is the author's default failure routing: invokers let the
	// operation through when the interceptor fails (crash, timeout).
	FailOpen bool
	// PriorityHint orders mutators, lower first (nil: 0). Validators
	// ignore it.
	PriorityHint *wire.PriorityHint
	// Compat bounds the MCP protocol versions the interceptor supports.
	Compat *wire.Compat
	// ConfigSchema is the JSON Schema of the config object invocations may
	// carry; the host checks config against it.
	ConfigSchema json.RawMessage
}

// descriptor returns the wire descriptor of an interceptor of type t.
func (s *Spec) descriptor(t wire.Type) wire.Interceptor {
	d := wire.Interceptor{Name: s.Name, Version: s.Version, Description: s.Description, Type: t, Hooks: []wire.Hook{},
		FailOpen: s.FailOpen, Compat: s.Compat, ConfigSchema: s.ConfigSchema}
	if t == wire.Mutation {
		d.PriorityHint = s.PriorityHint
	}
	if s.Audit {
		d.Mode = wire.Audit
	}
	phases := s.Phases
	if phases == 0 {
		phases = OnRequest
	}
	if phases&OnRequest != 0 {
		d.Hooks = append(d.Hooks, wire.Hook{Events: s.Events, Phase: wire.Request})
	}
	if phases&OnResponse != 0 {
		d.Hooks = append(d.Hooks, wire.Hook{Events: s.Events, Phase: wire.Response})
	}
	return d
}

// ValidateFunc is a validator: it inspects the invocation's payload and
// returns a verdict. An error is an execution failure, never a verdict:
// the invoker routes it by its fail-open policy.
type ValidateFunc func(ctx context.Context, inv *Invocation) (Verdict, error)

// MutateFunc is a mutator: it returns the replacement payload, or
// [Unchanged]. An error is an execution failure.
type MutateFunc func(ctx context.Context, inv *Invocation) (Mutation, error)

// Interceptor is one interceptor a host serves: its descriptor and its
// function. Build it with [Validator] or [Mutator].
type Interceptor struct {
	spec     Spec
	validate ValidateFunc
	mutate   MutateFunc
}

// Validator returns the validator described by spec whose function is fn.
func Validator(spec Spec, fn ValidateFunc) Interceptor {
	return Interceptor{spec: spec, validate: fn}
}

// Mutator returns the mutator described by spec whose function is fn.
func Mutator(spec Spec, fn MutateFunc) Interceptor {
	return Interceptor{spec: spec, mutate: fn}
}

// Spec returns the interceptor's description.
func (i Interceptor) Spec() Spec { return i.spec }

// Type returns wire.Validation or wire.Mutation.
func (i Interceptor) Type() wire.Type {
	if i.mutate != nil {
		return wire.Mutation
	}
	return wire.Validation
}

// check reports what is wrong with the interceptor's definition.
func (i Interceptor) check() error {
	var errs []error
	if i.spec.Name == "" {
		errs = append(errs, errors.New("no Name"))
	}
	if (i.validate == nil) == (i.mutate == nil) {
		errs = append(errs, errors.New("no function (build it with host.Validator or host.Mutator)"))
	}
	if len(i.spec.Events) == 0 {
		errs = append(errs, errors.New("no Events"))
	}
	for n, e := range i.spec.Events {
		if e == "" {
			errs = append(errs, fmt.Errorf("Events[%d] is empty", n))
		}
	}
	if i.spec.Phases&^OnBoth != 0 {
		errs = append(errs, fmt.Errorf("Phases: %v is not OnRequest, OnResponse or OnBoth", i.spec.Phases))
	}
	if i.spec.PriorityHint != nil && i.mutate == nil {
		errs = append(errs, errors.New("PriorityHint is set on a validator, which has no order"))
	}
	return errors.Join(errs...)
}

// Invocation is one interceptor/invoke call, as an interceptor's function
// sees it.
type Invocation struct {
	// Name is the interceptor invoked.
	Name string
	// Event and Phase are the lifecycle event intercepted, e.g.
	// "tools/call" and wire.Request.
	Event string
	Phase wire.Phase
	// Payload is the value under governance: on a request, its method and
	// params; on a response, the result.
	Payload json.RawMessage
	// Config is the invocation's configuration, checked against the
	// interceptor's ConfigSchema.
	Config map[string]any
	// Context tells who the operation runs for, its trace and its
	// session; nil when the invoker sent none.
	Context *wire.InvocationContext
}

// Params returns the params of a request-phase payload: the payload's
// "params" member. An invoker that sends the params alone (older drafts
// did) gets them as they are. It is nil on a response.
func (inv *Invocation) Params() json.RawMessage {
	if inv.Phase != wire.Request {
		return nil
	}
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(inv.Payload, &req) != nil || req.Method == "" {
		return inv.Payload
	}
	return req.Params
}

// Verdict is a validator's decision.
type Verdict struct {
	// Valid is the decision.
	Valid bool
	// Severity grades it; invokers block only on an invalid payload of
	// severity error (or none).
	Severity wire.Severity
	// Messages explain it to the invoker's operators.
	Messages []wire.Message
	// Suggestions are advisory corrections, never applied.
	Suggestions []wire.Suggestion
	// Info is interceptor-specific data.
	Info map[string]any
}

// Allow is the verdict of a payload that passes.
func Allow() Verdict { return Verdict{Valid: true} }

// Deny is the verdict of a payload that must be blocked, with the reason.
func Deny(reason string) Verdict {
	return Verdict{Valid: false, Severity: wire.Error, Messages: []wire.Message{{Message: reason, Severity: wire.Error}}}
}

// Warn is the verdict of a payload that fails a check that does not block:
// invokers record it and let the operation through.
func Warn(reason string) Verdict {
	return Verdict{Valid: false, Severity: wire.Warn, Messages: []wire.Message{{Message: reason, Severity: wire.Warn}}}
}

// Mutation is a mutator's answer.
type Mutation struct {
	// Modified says whether Payload replaces the invocation's payload.
	Modified bool
	// Payload is the replacement; ignored when Modified is false (the host
	// answers with the payload it received, as the SEP requires).
	Payload json.RawMessage
	// Info is interceptor-specific data.
	Info map[string]any
}

// Unchanged is the answer of a mutator that leaves the payload as it is.
func Unchanged() Mutation { return Mutation{} }

// Replace is the answer of a mutator that replaces the payload.
func Replace(payload json.RawMessage) Mutation { return Mutation{Modified: true, Payload: payload} }
