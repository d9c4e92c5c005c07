package command

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// FailureKind says how a hook failed.
type FailureKind uint8

// The kinds of failure. Each is handled by the hook's rule
// ([settings.Hook.OnFailure]), logged, recorded in the run (a [*Failure])
// and sent to [Config.Audit].
const (
	// FailStart: the process could not be started.
	FailStart FailureKind = iota + 1
	// FailExit: it exited with a code that is neither 0 nor 2 (for OLLM's
	// protocol, any code but 0).
	FailExit
	// FailSignal: a signal it did not get from hookflow ended it (a crash).
	FailSignal
	// FailTimeout: it ran past its timeout and was killed.
	FailTimeout
	// FailCanceled: the request was cancelled while it ran; it was killed.
	FailCanceled
	// FailShutdown: the plugin was closed while it ran; it was killed.
	FailShutdown
	// FailOutputCap: its stdout or stderr went over the cap; it was killed.
	FailOutputCap
	// FailBadOutput: its output does not follow its protocol (bad JSON, a
	// field of the wrong type, an unknown decision).
	FailBadOutput
	// FailHookError: an OLLM hook answered with an error.
	FailHookError
	// FailChanged: its script changed since it was trusted; it did not run.
	FailChanged
	// FailRateLimit: its rate limit or cooldown refused the run.
	FailRateLimit
	// FailBusy: its concurrency cap stayed full until its timeout.
	FailBusy
	// FailHTTPStatus: an http hook's URL answered with a status other
	// than 2xx.
	FailHTTPStatus
	// FailNoSampling: a prompt hook ran for a client that does not offer
	// sampling, or whose protocol cannot be asked during this request.
	FailNoSampling
	// FailToolError: an mcp_tool hook's tool answered with an error
	// (isError), or its call was blocked.
	FailToolError
	// FailLoop: an mcp_tool hook would call a tool whose call it runs
	// for, directly or through other hooks' calls; it blocks the call
	// whatever the hook's rule.
	FailLoop
)

var failureNames = [...]string{
	FailStart: "start", FailExit: "exit", FailSignal: "signal", FailTimeout: "timeout",
	FailCanceled: "canceled", FailShutdown: "shutdown", FailOutputCap: "output_cap",
	FailBadOutput: "bad_output", FailHookError: "hook_error", FailChanged: "changed",
	FailRateLimit: "rate_limit", FailBusy: "busy", FailHTTPStatus: "http_status", FailNoSampling: "no_sampling",
	FailToolError: "tool_error", FailLoop: "loop",
}

// agentKind reports whether the agents have failures of kind k too: for
// them these are non-blocking errors ([settings.RuleAgent]).
func (k FailureKind) agentKind() bool {
	switch k {
	case FailStart, FailExit, FailSignal, FailTimeout, FailBadOutput, FailHookError, FailHTTPStatus, FailToolError:
		return true
	}
	return false
}

// String returns the kind's snake_case name, e.g. "timeout".
func (k FailureKind) String() string {
	if int(k) < len(failureNames) && failureNames[k] != "" {
		return failureNames[k]
	}
	return "FailureKind(" + strconv.Itoa(int(k)) + ")"
}

// Failure is one failure of one command hook in one run. The hook
// returns it as its error, so that the run holds it: a failure its rule
// let through is in [flows.Context.Failures], one that blocked is the
// run's [flows.Context.Err] in finally; [errors.As] finds the *Failure
// in either.
type Failure struct {
	// Hook is the hook's ID, Name its name, Event its event.
	Hook  string
	Name  string
	Event settings.Event
	// Script is the script's path.
	Script string
	// Kind says how it failed; Err says what happened, for the log and
	// the audit record (for FailChanged: the script's path, the trusted
	// and the current SHA-256, and the command that trusts it again).
	Kind FailureKind
	Err  string
	// Policy is what the hook's rule made of this failure: with
	// FailClosed the call was blocked, with FailOpen it went on (a
	// non-blocking failure, in the run's [flows.Context.Failures]).
	Policy flows.FailurePolicy
	// ExitCode is the process's exit code, -1 when a signal ended it or it
	// did not run.
	ExitCode int
	// Stderr is the end of what the process wrote on stderr (at most 1 KiB).
	Stderr string
	// Took is how long the process ran.
	Took time.Duration
	// RequestID and SessionID say which request it served.
	RequestID, SessionID string
	// remote is set for a hook that calls a server (an http hook): its
	// client reads the kind and a fixed cause, never the hook's URL, the
	// transport's error or the answer's body, which name the server.
	remote bool
}

// untrustedText is all a client reads of a [FailChanged] failure: which
// script, where it lives and which hashes the store holds are for the
// operator, in the log and the audit record, not for whoever made the
// call.
const untrustedText = "a command hook is not trusted: the operator must review it"

// Error returns the failure as the client reads it when it fails a run:
// the hook's name, what happened and the end of its stderr; for
// [FailChanged], only that the operator must review the hook.
func (f *Failure) Error() string {
	if f.Kind == FailChanged {
		return untrustedText
	}
	if f.remote {
		return fmt.Sprintf("command hook %q failed (%s): %s", f.Name, f.Kind, remoteCause(f.Kind, f.Err))
	}
	msg := fmt.Sprintf("command hook %q failed (%s): %s", f.Name, f.Kind, f.Err)
	if f.Stderr != "" {
		msg += ": " + f.Stderr
	}
	return msg
}

// remoteCause is what the client of a remote hook's failure reads of its
// cause: the failures whose text is the hook's own (a timeout, a status,
// the output cap) as they are, and for any other a fixed text.
func remoteCause(kind FailureKind, err string) string {
	switch kind {
	case FailTimeout, FailHTTPStatus, FailOutputCap, FailBadOutput, FailCanceled, FailShutdown, FailRateLimit, FailBusy, FailToolError, FailLoop:
		return err
	}
	return "its server could not be reached"
}

func (f *Failure) attrs() []slog.Attr {
	return []slog.Attr{
		slog.String("hook", f.Hook), slog.String("name", f.Name), slog.String("event", f.Event.String()),
		slog.String("script", f.Script), slog.String("kind", f.Kind.String()), slog.String("error", f.Err),
		slog.String("policy", f.Policy.String()), slog.Int("exit_code", f.ExitCode), slog.String("stderr", f.Stderr),
		slog.Duration("took", f.Took), slog.String("request_id", f.RequestID), slog.String("session_id", f.SessionID),
	}
}

// tail returns the last max bytes of b as text, cut at a rune boundary.
func tail(b []byte, max int) string {
	if len(b) > max {
		b = b[len(b)-max:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
		return "…" + string(trimSpace(b))
	}
	return string(trimSpace(b))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' || b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// record logs f, sends it to the audit handler and adds it to the run.
func (p *Plugin) record(c *flows.Context, f Failure) {
	p.failures.Add(1)
	p.logger().LogAttrs(c.Context(), slog.LevelWarn, "command hook failed", f.attrs()...)
	if p.cfg.Audit != nil {
		r := slog.NewRecord(time.Now(), slog.LevelWarn, "command hook failure", 0)
		r.AddAttrs(f.attrs()...)
		if p.cfg.Audit.Enabled(context.Background(), slog.LevelWarn) {
			_ = p.cfg.Audit.Handle(context.Background(), r)
		}
	}
}
