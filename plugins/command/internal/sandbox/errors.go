package sandbox

import "fmt"

// Code says what went wrong with a command line or a run.
type Code uint8

const (
	// CodeName: an interpreter or a runner named in the configuration is
	// not one (see [Check]).
	CodeName Code = iota + 1
	// CodeNotInstalled: the line's program, or its interpreter, is not
	// on the server's PATH.
	CodeNotInstalled
	// CodeStart: the process could not be started.
	CodeStart
	// CodeTimeout: the process ran past its timeout and was killed.
	CodeTimeout
	// CodeCanceled: the run's context was cancelled; it was killed.
	CodeCanceled
	// CodeShutdown: the run's stop channel was closed; it was killed.
	CodeShutdown
	// CodeOverflow: it wrote more than its cap on stdout or stderr
	// ([Error.Stream] says which) and was killed.
	CodeOverflow
)

// Error is a problem of a command line or a run, by its [Code].
type Error struct {
	Code Code
	// Field is the configuration field a CodeName error is about, such
	// as "interpreters[1]".
	Field string
	// Stream is "stdout" or "stderr", for CodeOverflow.
	Stream string
	// Msg says what went wrong, for people.
	Msg string
}

// Error returns Msg, after Field when it is set.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
	return e.Msg
}
