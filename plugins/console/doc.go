// Package console is a read-only web console for a hookflow server: the
// recent runs, live, each as a waterfall of its stages and hooks; the
// ordered hook plan of any flow and entity; the upstreams' health; and
// per-hook rates. It answers "why was this call blocked?" in a browser.
//
//	c := console.New(console.Config{TokenEnv: "HOOKFLOW_CONSOLE_TOKEN", Addr: "127.0.0.1:9090"})
//	err := srv.Use(c)
//	defer c.Close(ctx)
//
// # What it records
//
// The console is a plugin. It reads what the server already produces, and
// adds no second instrumentation: an observer ([flows.Observer]) sees
// every hook call and step of every run; a first hook notes when the run
// started and a last hook in finally reads how it ended (its error, the
// hook that decided it, [flows.Context.Decisions] and
// [flows.Context.Failures]) and hands the record to the console's own
// goroutine, without blocking: when more than 1024 runs wait, a run is
// dropped and counted ([Plugin.Dropped]). That goroutine decides the
// outcome as the audit plugin does (ok, blocked, error, answered_early,
// recovered), redacts the arguments (a tool's, or a prompt's; and, with
// Config.Results, the tool result, encoded as the run ends) with a
// [flows.Redactor]: its default secret list, Config.Redact added and
// Config.Reveal left out (give it the audit plugin's lists and both hide
// the same fields), caps each at Config.MaxBytes, and keeps the
// run in a ring of Config.Runs runs. A request refused before any flow
// ran (the auth plugin's HTTP scope challenge) reaches the console when
// it is given as the auth plugin's Auditor ([Plugin.RecordRefusal]); one
// the server refuses because it names no tool, prompt or resource the
// caller can see reaches it from the server (framework.PluginContext.OnRefusal),
// decided by framework.RefusedBy, with the error the client read.
//
// A step's duration is the time between the observer's event before it
// and its own, so it includes the runner's few nanoseconds between hooks.
// A run keeps its first 48 hook calls and steps and counts the others. A
// reason the client read is shown, capped at 1 KiB, except an invalid
// input's, which may quote the caller's value: it is shown by its code.
// Results are off by default: a tool's text content is shown as the tool
// returned it (redaction applies to JSON fields), and encoding a result
// costs the call an allocation of its size; Config.Results turns them on.
//
// # Pages
//
// Under Config.Path ("/console" by default):
//
//   - / lists the newest runs (flow, entity, upstream, principal, outcome,
//     duration, the deciding hook), filtered by outcome, tool, principal,
//     upstream and flow from the query; new runs appear as they finish,
//     through a Server-Sent Events stream (/events, same filters) that
//     resumes after the last run a viewer saw and counts what it cannot
//     replay (docs/console.md).
//   - /runs/{id} is one run, by its ULID (time-ordered, never reused
//     across restarts): its outcome, the hook that decided it, the
//     reason the client read, a waterfall of each hook and step with its
//     outcome (ran, skipped, blocked, answered early, failed open, timed
//     out, failed, canceled, recovered, respond refused) and duration,
//     the hooks' decisions, the redacted arguments and result, and a link
//     to its trace when the otel plugin traces it and Config.TraceURL is
//     set.
//   - /plan?flow=…&entity=… is the ordered plan of [framework.Server.Explain]:
//     per stage the hooks in the order a call runs them, with their
//     positions, owners, timeouts and failure policies.
//   - /upstreams shows the report of the gateway's readiness endpoint,
//     at Config.HealthURL or, in process, Config.Health (a
//     flows.HealthReporter: give it gateway.Gateways), one row per
//     upstream.
//   - /rates charts, per hook over Config.Window, calls/s, blocked/s and
//     p50/p99 durations (upper bounds of power-of-two buckets), drawn as
//     inline SVG on the server.
//
// Pages are html/template, with one small embedded script (versioned by
// its URL, [Version]) that keeps the list live; nothing is fetched from
// anywhere else, so the console works on an air-gapped host, under a
// Content-Security-Policy that allows the console's own files only.
//
// # Credentials
//
// Every page, file and stream needs a credential, else 401: the admin
// token (Config.Token, or the environment variable Config.TokenEnv names),
// presented as a bearer token or as the password of HTTP basic
// authentication (browsers ask for it), compared in constant time; or,
// behind the auth plugin's handler, a verified bearer token with
// Config.Scope ("hookflow:console"); a verified token without it gets
// 403. The console is read-only (other methods get 405). No page or
// stream shows a token or a redacted value; session IDs appear as the
// audit plugin writes them.
//
// A host serves the console in one of two ways: on a listener of its own
// (Config.Addr), which needs the admin token, or under Config.Path on the
// MCP server's own listener behind the auth plugin's middleware, which
// [Plugin.Pages] hands it when Addr is empty: the hookflow gateway does
// the latter for a console without addr, so that the operator's OAuth
// tokens with the scope open it.
//
// # Bounds
//
// A peer's input cannot make the console hold more than: Config.Runs runs
// (default 1000), each with at most Config.MaxBytes of arguments and of
// result and 48 steps; 1024 runs waiting for the console's goroutine;
// Config.Viewers live streams (default 16, then 503), each buffering 64
// runs for a viewer that reads slowly, past which the oldest are dropped
// and the stream sends an event "dropped" with their count; 512 charted
// hooks of 300 buckets each; a readiness report of 1 MiB.
//
// # Cost
//
// Off, the console costs nothing: a server without the plugin runs no
// code of it. On, each run pays two hook calls, one clock read per hook
// call and step, and a channel send; the redaction and rendering happen
// on the console's goroutine and when a page is drawn. docs/benchmarks.md
// has the measurement.
package console
