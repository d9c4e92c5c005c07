// Package audit is hookflow's audit plugin: one structured event per flow
// run, written to any slog.Handler and/or a JSON-lines file rotated by size.
//
// # Events
//
// An [Event] says which flow ran for which entity (tool, prompt, resource),
// on which session and hookflow request ID, for which principal (the
// verified token's user ID), how it ended and how long it took:
//
//	ok              the run succeeded
//	error           it failed: tool error or isError result, invalid input, panic, cancellation
//	blocked         a hook stopped it; decided_by names the hook
//	answered_early  a hook answered before execute (e.g. plugins/cache); decided_by names it
//	recovered       it failed and an onError hook recovered it; decided_by names it
//
// The arguments of tools/call and prompts/get are recorded as the client
// sent them (before any hook rewrote them), with the fields of
// [Config.Redact] replaced by [Redacted]. Tokens and HTTP headers are never
// recorded.
//
// # Never blocking, never failing
//
// Events are built in finally and go through a bounded queue to one
// writer goroutine. A full queue drops the event, a sink that fails or
// panics loses its write; both only increment [Plugin.Dropped]. A call is
// never delayed by a sink and never fails because of one. [Plugin.Flush]
// waits for the queue to drain; [Plugin.Close] drains it and closes the
// file; call it when the server stops.
//
// # Configuration
//
// [Config] is a plain struct; its zero value audits every flow to the
// server's logger. A bad configuration fails the server's Start with an
// error naming the plugin and the field, e.g.
// `plugin "audit" (server/plugin:audit): Config.QueueSize: must not be negative, got -1`.
package audit
