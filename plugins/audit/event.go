package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// Outcome says how a flow run ended.
type Outcome string

// The outcomes of a run.
const (
	// OK: the run succeeded.
	OK Outcome = "ok"
	// Failed: the run failed (a tool error or isError result, invalid
	// input, a panic, a cancellation), and no hook decided it.
	Failed Outcome = "error"
	// Blocked: a hook stopped the run (returned an error or called Abort);
	// [Event.DecidedBy] names it.
	Blocked Outcome = "blocked"
	// AnsweredEarly: a hook answered before execute (Respond), e.g. from a
	// cache; [Event.DecidedBy] names it.
	AnsweredEarly Outcome = "answered_early"
	// Recovered: the run failed and an onError hook recovered it with
	// Respond; [Event.DecidedBy] names it.
	Recovered Outcome = "recovered"
)

// Redacted replaces the values of redacted fields in [Event.Args]; it is
// flows.Redacted.
const Redacted = flows.Redacted

// Event is the record of one flow run. Its JSON form is one line of the
// JSON-lines file; the slog attributes have the same keys.
//
// An Event never holds the caller's token or HTTP headers: the principal is
// the token's user ID only, and the client its client ID.
type Event struct {
	// Time is when the run ended.
	Time time.Time `json:"time"`
	// Flow is the flow that ran, e.g. "tools:call-tool".
	Flow flows.ID `json:"flow"`
	// Entity is the tool or prompt name, or the resource's URI (or URI
	// template); empty for flows without an entity (lists, initialize).
	Entity string `json:"entity,omitempty"`
	// SessionID is the transport's session ID (empty over stdio and
	// in-memory transports).
	SessionID string `json:"session_id,omitempty"`
	// RequestID is the request ID hookflow minted for the request.
	RequestID string `json:"request_id"`
	// Principal is the authenticated user's ID, or empty.
	Principal string `json:"principal,omitempty"`
	// ClientID is the OAuth client the caller's token was issued to, when
	// its verifier says (flows.Request.ClientID), or empty.
	ClientID string `json:"client_id,omitempty"`
	// Outcome says how the run ended.
	Outcome Outcome `json:"outcome"`
	// DecidedBy is the ID of the hook that blocked, answered early or
	// recovered the run (or panicked).
	DecidedBy string `json:"decided_by,omitempty"`
	// Error is why the run failed: the reason the client was given, except
	// for invalid input, recorded by where it failed the input schema and
	// never by the value (see the package doc, "What is recorded").
	Error string `json:"error,omitempty"`
	// Duration is how long the run took, from its first stage to finally
	// (in nanoseconds in JSON, as slog's JSON handler writes durations).
	Duration time.Duration `json:"duration"`
	// URI is the URI of a resources/read.
	URI string `json:"uri,omitempty"`
	// Args are the arguments of a tools/call or prompts/get as the client
	// sent them, with the configured fields replaced by [Redacted].
	Args json.RawMessage `json:"args,omitempty"`
	// FailedOpen lists the failures of the run's fail-open hooks
	// ([flows.FailOpen]), in order: they did not change the outcome.
	FailedOpen []HookFailure `json:"failed_open,omitempty"`
	// Decisions are what hooks decided during the run and recorded with
	// flows.Context.Decide (e.g. each remote interceptor's verdict), in
	// the order they were recorded.
	Decisions []flows.Decision `json:"decisions,omitempty"`
	// Truncated lists the fields ("args", "error", "uri", "failed_open",
	// "decisions")
	// cut to [Config.MaxArgsBytes] or [Config.MaxTextBytes]; nil when none
	// was.
	Truncated []string `json:"truncated,omitempty"`
}

// HookFailure is the failure of one fail-open hook.
type HookFailure struct {
	// Hook is the hook's ID.
	Hook string `json:"hook"`
	// Code is how it failed: "aborted" (it returned an error), "panic" or
	// "timeout".
	Code string `json:"code"`
	// Error is the reason, as a client would read it (a panic's value is
	// never recorded), capped at [Config.MaxTextBytes].
	Error string `json:"error"`
}

// record turns ev into a slog record with message "audit" at level Info.
// The attributes are gathered first and added at once, so that the
// record grows its storage once.
func (ev *Event) record() slog.Record {
	var buf [16]slog.Attr
	a := append(buf[:0], slog.String("flow", string(ev.Flow)))
	a = appendAttr(a, "entity", ev.Entity)
	a = appendAttr(a, "session_id", ev.SessionID)
	a = append(a, slog.String("request_id", ev.RequestID))
	a = appendAttr(a, "principal", ev.Principal)
	a = appendAttr(a, "client_id", ev.ClientID)
	a = append(a, slog.String("outcome", string(ev.Outcome)))
	a = appendAttr(a, "decided_by", ev.DecidedBy)
	a = appendAttr(a, "error", ev.Error)
	a = append(a, slog.Duration("duration", ev.Duration))
	a = appendAttr(a, "uri", ev.URI)
	if len(ev.Args) > 0 {
		// JSON handlers embed a json.RawMessage as JSON; text handlers
		// quote it as a string.
		a = append(a, slog.Any("args", ev.Args))
	}
	if len(ev.FailedOpen) > 0 {
		a = append(a, slog.Any("failed_open", ev.FailedOpen))
	}
	if len(ev.Decisions) > 0 {
		a = append(a, slog.Any("decisions", ev.Decisions))
	}
	if len(ev.Truncated) > 0 {
		a = append(a, slog.Any("truncated", ev.Truncated))
	}
	r := slog.NewRecord(ev.Time, slog.LevelInfo, "audit", 0)
	r.AddAttrs(a...)
	return r
}

// appendAttr appends the attribute key=v to a unless v is empty.
func appendAttr(a []slog.Attr, key, v string) []slog.Attr {
	if v == "" {
		return a
	}
	return append(a, slog.String(key, v))
}

// sink receives events on the plugin's goroutine, one at a time.
type sink interface {
	write(ev *Event) error
	close() error
}

// handlerSink writes events to a slog.Handler.
type handlerSink struct{ h slog.Handler }

func (s handlerSink) write(ev *Event) error {
	ctx := context.Background()
	if !s.h.Enabled(ctx, slog.LevelInfo) {
		return nil
	}
	return s.h.Handle(ctx, ev.record())
}

func (handlerSink) close() error { return nil }

// fileSink writes events as JSON lines to a rotating file. Its buffers
// are reused from one event to the next (sinks write one event at a
// time); a line longer than maxKeptLine is not kept.
type fileSink struct {
	f       *rotatingFile
	line    []byte
	scratch bytes.Buffer
}

// maxKeptLine bounds the line buffer a fileSink keeps between events.
const maxKeptLine = 64 << 10

func (s *fileSink) write(ev *Event) error {
	b, err := ev.appendJSON(s.line[:0], &s.scratch)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if cap(b) <= maxKeptLine {
		s.line = b
	}
	return s.f.write(b)
}

func (s *fileSink) close() error { return s.f.close() }
