// Package otel traces and measures hookflow runs with OpenTelemetry.
//
// Attach the plugin to a server (or an app) and every run of the flows it
// covers becomes a span, with a child span for every hook that runs and for
// the flow's own steps (validate, execute, output), and feeds a few
// metrics. The tracer and meter providers come from [Config] (the global
// ones by default), so the exporter is the application's choice; package
// otelsetup builds providers that export to stdout or over OTLP.
//
//	p := otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp, AuditDropped: aud.Dropped})
//	err := srv.Use(p)
//
// # Configuration file
//
// [Config] is the plugin's section of a configuration file (the gateway's):
// the flows traced and an exporter, whose providers the plugin builds at
// Attach with otelsetup and flushes and stops at [Plugin.Close]:
//
//	flows: [tools:call-tool, resources:read-resource]
//	exporter: otlp                  # or stdout, stderr, prometheus
//	endpoint: collector:4318
//	headers_env: {Authorization: COLLECTOR_AUTH}
//	service_name: gateway
//	sample_ratio: 0.1
//
// Header values come from the environment variables the file names, so a
// file holds no secret. The providers, the propagator and AuditDropped are
// set in Go only.
//
// # Semantic conventions
//
// Spans and the duration metric follow the OpenTelemetry semantic
// conventions for MCP of release v1.41.0 (status: development): the run
// span is a SERVER span named "{mcp.method.name} {target}" (the tool or
// prompt name when there is one), with mcp.method.name, mcp.session.id,
// mcp.protocol.version, mcp.resource.uri, gen_ai.tool.name,
// gen_ai.prompt.name, gen_ai.operation.name (execute_tool for a tool
// call), error.type (the JSON-RPC code, "tool_error" for an isError
// result, else hookflow's error code), rpc.response.status_code,
// network.transport ("pipe" for stdio, io and in-memory transports, "tcp"
// for HTTP; unset for a transport hookflow cannot name, see
// [framework.Server.TransportOf]) and network.protocol.name ("http" over
// HTTP). The hookflow-specific attributes are under hookflow.*: the flow,
// the request ID hookflow minted, the run's outcome (ok, blocked, failed,
// answered_early, recovered, or refused, below), the hook that decided it
// (decided_by), and hookflow's error code. Over hookflow's own HTTP
// transport ([framework.Server.HTTPHandler]'s) a span also has
// jsonrpc.request.id, client.address and client.port
// ([framework.Server.CallOf]); the SDK's transports give a handler
// neither.
//
// # What gets a span
//
// Every request that reaches the server's session and is answered gets one
// SERVER span and one mcp.server.operation.duration record, never two: a
// request whose traced flow ran gets the run's; a request answered with a
// JSON-RPC error before any flow ran (a tool, prompt or resource the server
// does not have or hides from the caller, a second initialize, a request
// the SDK answers itself) gets a span of its own, recorded by an SDK
// receiving middleware the plugin adds outside hookflow's: named as a run's
// would be, with mcp.method.name, the target's attributes, error.type and
// rpc.response.status_code set to the JSON-RPC code (error.type "_OTHER"
// for an error without one), hookflow.outcome "refused", and status Error;
// its duration record has the same attributes but the session ID and the
// resource URI. Only a plugin attached to the server records these
// (attached to an app, it traces the app's runs only), and only for the
// methods of the flows it traces and for methods that have no flow.
// Notifications get no answer and no refusal span.
//
// What is refused before the session gets no span and no record: over
// HTTP, the transport's refusals (a body too large: 413; a Host or origin
// the server does not accept: 403; an unknown or expired session: 404; a
// wrong Content-Type or Accept: 415 or 406; a missing or bad token when an
// auth middleware guards the handler: 401) and the JSON-RPC refusals of
// the HTTP handler ([framework.Server.HTTPHandler]: a body that is not
// JSON-RPC, a method MCP does not define, a request that needs a session,
// answered 400). Count those with the HTTP server's own instrumentation,
// wrapped around the handler. Over stdio and in memory, the SDK answers a
// method it does not know (-32601), a request missing its params or
// arriving before initialize inside the session, without calling any
// middleware: those get no span either.
//
// A hook span is an INTERNAL child named "{stage} {hook ID}" with
// hookflow.hook.id, hookflow.hook.owner, hookflow.stage and
// hookflow.outcome; a step span is named after the step. Hooks run one after
// another, so a hook's span starts where the previous hook or step ended.
//
// # Trace context
//
// The run's parent is the trace context the client sent in the request's
// params._meta (traceparent, tracestate, baggage), extracted with the
// configured propagator (W3C trace context and baggage by default); the
// ambient context (an HTTP server span, when there is one) is linked. The
// rest of the run (the tool's execute step and whatever it calls) runs
// inside the run span: [flows.Context.Context] carries it from the first
// hook on, so calls made with it, such as a gateway's call upstream,
// inject it in turn.
//
// # Metrics
//
//	mcp.server.operation.duration    histogram, s   per method, flow, outcome, error.type, tool or prompt, upstream, transport (runs and refusals)
//	hookflow.hook.duration           histogram, s   per hook, stage and outcome
//	hookflow.run.blocked             counter        per flow and deciding hook
//	hookflow.hook.failed_open        counter        per hook and code (fail-open failures)
//	hookflow.ratelimit.rejections    counter        per flow and tool (calls a budget refused: flows.CodeLimited, as the ratelimit plugin's)
//	hookflow.audit.dropped           counter        events the audit plugin dropped (Config.AuditDropped)
//
// A run's upstream (hookflow.upstream) is that of its entity when the
// entity's Value has an UpstreamName() string method, as a gateway's
// mounted entities do. [Plugin.MeterProvider] is the provider these
// report to, for a program's own instruments (the hookflow gateway adds
// its upstreams' state, sessions and queues there).
//
// # Prometheus
//
// With exporter prometheus the metrics are read when scraped:
// [Plugin.Metrics] serves them in the Prometheus text format through
// OpenTelemetry's own exporter, so a scrape shows the instruments above,
// not a second set of names: dots become underscores, the unit is
// appended and a counter ends in _total
// (mcp_server_operation_duration_seconds, hookflow_run_blocked_total),
// each with otel_scope_name, and the resource (service.name) is the
// target_info series. No span is exported: the tracer samples none.
//
// # Cost
//
// A server without the plugin pays nothing: the runner reports to no
// observer and runs no hook of it. With it, a run costs its spans and
// metric records; docs/benchmarks.md has the numbers.
package otel
