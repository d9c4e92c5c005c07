// Package audit is hookflow's audit plugin: one structured event per flow
// run, written to any slog.Handler and/or a JSON-lines file rotated by size.
//
// # Events
//
// An [Event] says which flow ran for which entity (tool, prompt, resource),
// on which session and hookflow request ID, for which principal (the
// verified token's user ID) and client (its client ID, when the verifier
// says), how it ended and how long it took:
//
//	ok              the run succeeded
//	error           it failed: tool error or isError result, invalid input, panic, cancellation
//	blocked         a hook stopped it; decided_by names the hook
//	answered_early  a hook answered before execute (e.g. plugins/cache); decided_by names it
//	recovered       it failed and an onError hook recovered it; decided_by names it
//
// # What is recorded
//
// The arguments of tools/call and prompts/get are recorded as the client
// sent them (before any hook rewrote them), with secret-bearing fields
// replaced by [Redacted]: a flows.Redactor's default list (passwords,
// tokens, secrets, API keys, cookies… in any spelling, at any depth)
// with [Config.Redact] added and [Config.Reveal] left out, as for any
// reader of run data given the same lists. Tokens and HTTP headers are
// never recorded.
//
// The error of a failed run is the reason the client was given, with one
// exception: input that fails validation is recorded by where it failed
// the tool's schema and which keyword refused it, never by its value, so
// that a redacted field cannot leak through the error:
//
//	validating "arguments": validating root: validating /properties/password: type (value not recorded)
//
// The model still reads the validator's full text, value included: it is
// the caller's own input, sent back to the caller, and the model needs it
// to correct the call. Errors that hooks return are recorded as written;
// a hook must not quote secrets in them.
//
// Hooks with a fail-open policy (flows.FailOpen) never change a run's
// outcome; their failures are recorded in [Event.FailedOpen], by hook ID,
// code (aborted, panic, timeout) and reason, so that a check that silently
// stopped working shows in the audit trail.
//
// # Decisions of other plugins
//
// A hook that decides something about a run that the run's outcome does
// not show — a remote interceptor that allowed, warned about or rewrote a
// request (plugins/intercept) — records it on the run with
// flows.Context.Decide; the event lists these flows.Decision values, each
// with who decided, the outcome and how long it took, in the order they
// were recorded. Neither plugin imports the other.
//
// # Refusals before any run
//
// A request refused before it reached the MCP server (the auth plugin's
// HTTP scope challenge) runs no flow, so no hook sees it; the refusing
// middleware hands a flows.Refusal to [Plugin.RecordRefusal], which
// records it as a blocked run. The auth plugin takes the audit plugin as
// its Config.Audit. A request the server refuses because it names no
// tool, prompt or resource the caller can see reaches the plugin the same
// way, from the server itself (framework.PluginContext.OnRefusal): an
// event decided by framework.RefusedBy with the error the client read.
//
// # Size
//
// One caller must not be able to flush the audit trail (push earlier events
// out of the rotated files) with a few huge calls. Each event's arguments
// are capped at [Config.MaxArgsBytes] (8 KiB by default) after redaction,
// and its error and URI at [Config.MaxTextBytes] (1 KiB): what is longer is
// cut, and [Event.Truncated] names the fields that were (a decision's
// reason is capped like the error, and a run keeps flows.MaxDecisions). Cut arguments are
// recorded as a JSON string holding their first bytes.
//
// # Never blocking, never failing
//
// Events are built in finally and go through a bounded queue to one
// writer goroutine. A full queue drops the event, a sink that fails or
// panics loses its write; both only increment [Plugin.Dropped]. A call is
// never delayed by a sink and never fails because of one. [Plugin.Flush]
// waits for the queue to drain; [Plugin.Close] drains it and closes the
// file; call it when the server stops, with a deadline: a sink stuck past
// it does not hold the shutdown, and the events it could not write are
// counted by [Plugin.Dropped].
//
// # Configuration
//
// [Config] is a plain struct; its zero value audits every flow to the
// server's logger. A bad configuration fails the server's Start with an
// error naming the plugin and the field, e.g.
// `plugin "audit" (server/plugin:audit): Config.QueueSize: must not be negative, got -1`.
package audit
