package flows

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/stages"
)

// Code classifies an [Error]. The set is closed: hookflow defines every code
// and users define none.
type Code uint8

// The error codes.
const (
	// CodeUnknown is the code of an error that is not an *Error.
	CodeUnknown Code = iota
	// CodeInvalid: a registration, configuration or directive is malformed
	// (unknown flow or stage, nil handler, bad option).
	CodeInvalid
	// CodeDuplicate: something with the same ID or name is already registered.
	CodeDuplicate
	// CodeNotFound: a hook ID, entity or scope does not exist.
	CodeNotFound
	// CodeInvalidInput: the request's input failed validation.
	CodeInvalidInput
	// CodeAborted: a hook stopped the flow, by returning an error or calling
	// [Context.Abort].
	CodeAborted
	// CodePanic: a hook or a step panicked; the cause is a *[PanicError].
	CodePanic
	// CodeCanceled: the request's context was cancelled or timed out before a
	// hook ran.
	CodeCanceled
	// CodeNotAllowed: a hook asked for something its stage does not allow,
	// such as [Context.Revalidate] after execute. (A hook's refusal of a
	// request is CodeAborted, which the framework sends clients as
	// framework.CodeRefused.)
	CodeNotAllowed
	// CodeFailed: the flow's execute step (the tool, resource or prompt
	// itself) returned an error; the cause is that error.
	CodeFailed
	// CodeTimeout: a hook ran past its [Hook.Timeout]; the cause is a
	// *[HookTimeoutError].
	CodeTimeout
	// CodeLimited: a budget (a rate limit, a quota) refused the request.
	// A hook that enforces one returns an *Error of this code, whose cause
	// may say when to retry (the ratelimit plugin's *LimitError has
	// RetryAfter). Like CodeAborted, it is a hook's decision: clients
	// read it as they read a hook's refusal, and observers tell the two
	// apart by the code.
	CodeLimited
)

// CodeRefused is the former name of [CodeNotAllowed].
//
// Deprecated: use CodeNotAllowed. A hook's refusal of a request is
// [CodeAborted]; framework.CodeRefused is the JSON-RPC code clients get
// for it.
const CodeRefused = CodeNotAllowed

var codeNames = [...]string{"unknown", "invalid", "duplicate", "not_found", "invalid_input", "aborted", "panic", "canceled", "not_allowed", "failed", "timeout", "limited"}

// String returns the code's snake_case name, e.g. "aborted".
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Error is the one error type of hookflow. It says what failed (Code), where
// (Flow, Stage, and Hook or Step) and why (Err, which it wraps).
//
// hookflow never wraps an *Error in another *Error: when a hook returns an
// *Error it is passed on as it is.
type Error struct {
	Code  Code
	Flow  ID
	Stage stages.Stage
	// Hook is the ID of the hook that failed, when a hook failed.
	Hook string
	// Step is "validate" or "execute" when the flow's own step failed.
	Step string
	// Field is the configuration field a CodeInvalid error is about, as a
	// configuration file spells its path from the plugin's configuration
	// down: "tokens[0].user". A loader that knows where the field was
	// written (a YAML file's line and column) reports the error there.
	Field string
	// Msg describes a failure that has no cause (e.g. a registration error).
	Msg string
	Err error
}

// Error renders the error with its location, e.g.
// `hookflow: tools:call-tool beforeExecute: hook "auth.scopes" aborted: missing scope "admin"`.
func (e *Error) Error() string {
	var b []byte
	b = append(b, "hookflow: "...)
	if e.Flow != "" {
		b = append(b, e.Flow...)
		if e.Hook != "" {
			b = append(b, ' ')
			b = append(b, e.Stage.String()...)
		}
		b = append(b, ": "...)
	}
	switch {
	case e.Hook != "":
		b = fmt.Appendf(b, "hook %q %s", e.Hook, e.verb())
	case e.Step != "":
		b = fmt.Appendf(b, "%s %s", e.Step, e.verb())
	default:
		b = append(b, e.Code.String()...)
	}
	if e.Field != "" {
		b = append(b, ": "...)
		b = append(b, e.Field...)
	}
	if e.Msg != "" {
		b = append(b, ": "...)
		b = append(b, e.Msg...)
	}
	if e.Err != nil {
		b = append(b, ": "...)
		b = appendCause(b, e.Err)
	}
	return string(b)
}

// appendCause appends err's text to b. An *Error cause is not prefixed
// again (no second "hookflow: invalid: "), and joined *Error causes are
// separated by "; ", so that an error wrapping a configuration's field
// errors reads as one line; other causes read as they are.
func appendCause(b []byte, err error) []byte {
	switch c := err.(type) {
	case *Error:
		s := strings.TrimPrefix(c.Error(), "hookflow: ")
		if c.Flow == "" && c.Hook == "" && c.Step == "" {
			s = strings.TrimPrefix(s, c.Code.String()+": ")
		}
		return append(b, s...)
	case interface{ Unwrap() []error }:
		causes := c.Unwrap()
		for _, inner := range causes {
			if _, ok := inner.(*Error); !ok {
				return append(b, err.Error()...)
			}
		}
		for i, inner := range causes {
			if i > 0 {
				b = append(b, "; "...)
			}
			b = appendCause(b, inner)
		}
		return b
	}
	return append(b, err.Error()...)
}

func (e *Error) verb() string {
	switch e.Code {
	case CodeAborted:
		return "aborted"
	case CodePanic:
		return "panicked"
	case CodeCanceled:
		return "canceled"
	case CodeNotAllowed:
		return "was not allowed"
	case CodeInvalidInput:
		return "rejected the input"
	case CodeTimeout:
		return "timed out"
	case CodeLimited:
		return "refused over a limit"
	}
	return "failed"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Reason returns the human-readable cause without hookflow's location prefix:
// the message of the wrapped error, or Msg. hookflow shows it to MCP clients
// (for a tool, as the text of an isError result). A panic's value may hold
// secrets, so the reason of a CodePanic error is only "internal error"; the
// value and stack stay on the error ([PanicError]) and in the server's log.
func (e *Error) Reason() string {
	if e.Code == CodePanic {
		return "internal error"
	}
	if e.Err != nil {
		if inner, ok := errors.AsType[*Error](e.Err); ok && inner != e {
			return inner.Reason()
		}
		return e.Err.Error()
	}
	if e.Msg != "" {
		return e.Msg
	}
	return e.Code.String()
}

// CodeOf returns the code of the first *Error in err's chain, or CodeUnknown.
func CodeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeUnknown
}

// Reason returns what a client should read about err: [Error.Reason] for an
// *Error in err's chain, err.Error() otherwise, "" for nil.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Reason()
	}
	return err.Error()
}

// PanicError is the cause of a CodePanic *Error: the value a hook or step
// panicked with, and the goroutine's stack at the panic.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns "panic: " and the panic value.
func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Unwrap returns the panic value when it is an error, so errors.Is sees
// through a panic(err).
func (p *PanicError) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// ErrAborted is the cause recorded when a hook calls [Context.Abort] with a
// nil error.
var ErrAborted = errors.New("aborted by hook")
