package wire

import (
	"fmt"
)

// The extension's identifier and its methods.
const (
	// Extension is the key of the interceptors capability in the
	// extensions map of an interceptor host's server capabilities.
	Extension = "io.modelcontextprotocol/interceptors"
	// MethodList lists the interceptors a host offers.
	MethodList = "interceptors/list"
	// MethodInvoke invokes one interceptor with one payload: the spelling
	// the SEP's text uses, and the one hookflow sends.
	MethodInvoke = "interceptor/invoke"
	// MethodInvokePlural is the plural spelling of MethodInvoke, which
	// the working group has under discussion (it would match
	// interceptors/list). A hookflow host answers both until the group
	// settles; an invoker sends MethodInvoke.
	MethodInvokePlural = "interceptors/invoke"
)

// Type is an interceptor's type: a validator or a mutator.
type Type string

// The two interceptor types.
const (
	// Validation: the interceptor inspects a payload and returns a
	// decision ([Result] with Valid set).
	Validation Type = "validation"
	// Mutation: the interceptor returns a replacement payload ([Result]
	// with Modified and Payload set).
	Mutation Type = "mutation"
)

// String returns the wire value, e.g. "validation".
func (t Type) String() string { return string(t) }

// ParseType returns the type named s, or an error for a value the SEP does
// not define.
func ParseType(s string) (Type, error) {
	switch t := Type(s); t {
	case Validation, Mutation:
		return t, nil
	}
	return "", fmt.Errorf("unknown interceptor type %q (want %q or %q)", s, Validation, Mutation)
}

// Phase is when in a context operation an interceptor runs: on the request,
// or on its result.
type Phase string

// The two phases.
const (
	Request  Phase = "request"
	Response Phase = "response"
)

// String returns the wire value, e.g. "request".
func (p Phase) String() string { return string(p) }

// ParsePhase returns the phase named s, or an error for any other value
// (the SEP's descriptors have no "both": an interceptor of both phases has
// two hooks).
func ParsePhase(s string) (Phase, error) {
	switch p := Phase(s); p {
	case Request, Response:
		return p, nil
	}
	return "", fmt.Errorf("unknown phase %q (want %q or %q)", s, Request, Response)
}

// Mode says what an invoker does with an interceptor's result: apply it, or
// only record it.
type Mode string

// The modes.
const (
	// Active blocks on a failed validation and applies a mutation. It is
	// the default.
	Active Mode = "active"
	// Audit records the result and never blocks or changes the payload: a
	// mutation is computed but not applied (a shadow mutation).
	Audit Mode = "audit"
)

// String returns the wire value, e.g. "audit"; "active" for the zero Mode.
func (m Mode) String() string {
	if m == "" {
		return string(Active)
	}
	return string(m)
}

// ModeEnforce is the name earlier drafts of the SEP, and the working
// group's fixtures until they were renamed, gave [Active]. A descriptor
// that declares it is read as active; hookflow never writes it.
const ModeEnforce = "enforce"

// ParseMode returns the mode named s; "" is [Active], the default, and so
// is [ModeEnforce], the older name. Any other value is an error: the SEP
// reserves them, and an invoker must not select an interceptor whose mode
// it does not know.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", string(Active), ModeEnforce:
		return Active, nil
	case string(Audit):
		return Audit, nil
	}
	return "", fmt.Errorf("unknown mode %q (want %q or %q)", s, Active, Audit)
}

// Severity grades a validation result or message.
type Severity string

// The severities the SEP defines. Only an error blocks.
const (
	Info  Severity = "info"
	Warn  Severity = "warn"
	Error Severity = "error"
)

// String returns the wire value, e.g. "warn".
func (s Severity) String() string { return string(s) }

// Blocks reports whether a failed validation (valid: false) of severity s
// blocks the operation: for "error", for an omitted severity and for any
// value the SEP does not define, which it routes fail-secure; not for
// "warn" or "info".
func (s Severity) Blocks() bool { return s != Warn && s != Info }

// Shape is how an invoker sends a request-phase payload. The SEP types
// the payload as the value under governance and shows, in its invoke
// example, a request as its method and params; the working group's
// conformance fixtures and SDKs send and read the params alone
// (payload.arguments of a tools/call). Both carry the same request of a
// known event; a response-phase payload is the result either way.
type Shape string

// The shapes.
const (
	// ShapeMessage is the request's method and params, {"method":
	// "tools/call", "params": {"name": …, "arguments": …}}: the SEP's
	// example, and what hookflow sends by default.
	ShapeMessage Shape = "message"
	// ShapeParams is the params alone, {"name": …, "arguments": …}: what
	// interceptors written with the working group's SDKs read.
	ShapeParams Shape = "params"
)

// ParseShape returns the shape named s ("" is ShapeMessage), or an error for
// any other value.
func ParseShape(s string) (Shape, error) {
	switch sh := Shape(s); sh {
	case "":
		return ShapeMessage, nil
	case ShapeMessage, ShapeParams:
		return sh, nil
	}
	return "", fmt.Errorf("unknown payload shape %q (want %q or %q)", s, ShapeMessage, ShapeParams)
}
