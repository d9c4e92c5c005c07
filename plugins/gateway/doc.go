// Package gateway puts hookflow in front of MCP servers it did not write: a
// [Gateway] is a plugin that mounts upstream servers into the server or the
// app it is attached to. Each upstream's tools, resources, resource
// templates and prompts become entities of that server or app, so every
// flow, hook and plugin (auth, ratelimit, cache, audit, …) applies to them
// exactly as to local entities.
//
//	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{
//		{Name: "files", Command: []string{"files-mcp"}},
//		{Name: "search", URL: "https://search.internal/mcp", Token: tok, Prefix: "search_"},
//	}})
//	app, _ := srv.App("upstreams")
//	app.Use(gw)
//
// # Forwarding
//
// A mounted tool validates its arguments against the upstream's input schema
// (hooks see them raw in beforeValidation, as a map after), then its execute
// step calls the upstream with the arguments as the hooks left them; the
// result comes back through afterExecute. The upstream's protocol errors
// reach the client with their code; its isError results stay results.
// Prompts, resources, templates and completions forward the same way. A
// forwarded request carries the client's _meta, with the gateway's progress
// token and, when the run's context carries a span (the otel plugin's span
// of the run), that span's W3C trace context, so the upstream's work is its
// child; the client's bearer token never goes upstream, only the upstream's
// own Token (or TokenSource's) and Header. Nor does the gateway's
// environment: a stdio upstream's process gets the variables [DefaultEnv]
// names (HOME, LOGNAME, PATH, SHELL, TERM, USER, as the TypeScript and
// Python SDKs' stdio clients pass them), those its [Upstream.InheritEnv]
// names, and its [Upstream.Env]; see [Environ]. A [Mounted] is every mounted
// entity's instance: [From] gives it to a hook, with the name upstream and
// the upstream's [Health].
//
// What the upstream sends about a call reaches the client session that made
// it: progress (with the client's own progress token), log messages, the
// completion of a URL-mode elicitation, and sampling, elicitation and roots
// requests, which the client answers (the gateway offers the upstream the
// client's capabilities). An HTTP upstream sends a request about a call on
// that call's response stream, and the gateway keeps it with that call; a
// stdio upstream's requests say nothing of their call, and go with the
// session's newest call in flight. These go through the server's flows like
// any message the server sends, so hooks on sampling:create-message,
// elicitation:create, roots:list-roots and notifications:from-server see
// them. A client's cancellation cancels the upstream request, and its
// notifications/roots/list_changed (unless a hook on
// notifications:from-client drops it) goes to its upstream sessions, which
// then list its roots again. The upstream's list-changed notifications make
// the gateway list again and mount the difference, and the server tells its
// clients the lists changed.
//
// # Slow clients
//
// The progress notifications, log messages and completions of URL-mode
// elicitations the upstreams send a client session wait in a queue of
// that session, sent in order, of at most [Config.QueueLimit] entries
// ([DefaultQueueLimit]): the MCP SDK hands an upstream session's
// notifications to the gateway one at a time and queues the others
// without bound meanwhile, so that one client that does not read would
// otherwise make the gateway hold everything the upstream sends it. When
// the queue is full, a new entry drops the oldest progress notification or
// log message (a completion only when the queue holds nothing else), so
// the newest progress arrives; [Health.Dropped] counts the drops per
// upstream, and the log warns at a session's first drop, every ten
// seconds while it drops and with the total once its queue empties.
// Results, errors and the upstreams' sampling, elicitation and roots
// requests are never queued nor dropped: a result waits for the client
// (after at most a second for the notifications queued before it), and a
// sampling or elicitation request for the client's answer within the
// call's timeout.
//
// # Upstreams behind OAuth
//
// An HTTP upstream that is an OAuth resource server gets its bearer token
// from [Upstream.TokenSource], for example client credentials with the
// upstream's URL as RFC 8707 resource indicator (see Example_tokenSource).
// The source's Token should fetch a new token at each call
// (clientcredentials.Config.Token, not its TokenSource, which caches): the
// gateway caches tokens itself, and asks again after a 401. One token serves
// every session of the upstream; it is fetched at the first request and
// again when it is within ten seconds of its expiry, by one fetch however
// many requests wait for it (a request waits at most as long as its own
// context allows). When the upstream answers 401 to a request sent with a
// token it accepted before (revoked, or the upstream's keys rotated), the
// gateway fetches a new token and sends that request once more: a 401 comes
// before the upstream handles a request, so sending it again does not repeat
// its effects, and the SDK's requests have bodies that can be sent again
// (one whose body cannot is not). A token the upstream never accepted is
// kept until it expires, so that an upstream refusing the gateway does not
// make it call the token endpoint at every request. A source's error fails
// the request with a [*TokenError] naming the upstream and the token
// endpoint, with the endpoint's answer.
//
// # Sessions
//
// In stateful mode (stdio, in-memory, stateful streamable HTTP) every client
// session gets its own upstream session, opened on its first request and
// closed with it, or once it served no request for [Upstream.IdleTimeout]
// ([DefaultIdleTimeout], 5 minutes; the client session's next request
// opens a new one): a stdio upstream then runs one process per client
// session, plus the gateway's own, which lists entities and hears list
// changes. An upstream keeps at most [Upstream.MaxSessions] of them open
// ([DefaultMaxSessions], 64): past it a client session's request fails,
// saying so, until another client session ends. On
// stateless HTTP, and for an upstream with [Upstream.Shared], client
// requests share the gateway's session: there is no client session to route
// requests to, so the upstream's sampling, elicitation and roots requests
// are refused and its log messages are not forwarded; progress still reaches
// the calling request.
//
// # Failures
//
// Every forwarded request is bounded by [Upstream.Timeout]: an upstream that
// does not answer fails the call with an error saying so, and the request is
// cancelled upstream. The gateway then pings the upstream: its own session
// without an answer within [Upstream.ConnectTimeout] (the upstream is
// frozen) marks it down, as below; a client session's upstream session
// without one (its stdio process is frozen) is closed, and that client
// session's next call opens a new one. An upstream that dies fails the calls
// in flight at once ("went away during tools/call"); the gateway marks it
// down (a warning in the log, [StateDown] in [Gateway.Health] and
// [Mounted.Health]), fails further calls at once while it reconnects with
// backoff between [Upstream.MinBackoff] and [Upstream.MaxBackoff], then
// lists and mounts again. A mounted tool's failure is an isError result the
// model reads; a prompt's or resource's is a protocol error. Nothing else on
// the server is affected. What the client reads names the upstream and the
// request, never the cause (an address, a session, a token endpoint's
// answer): the cause is a warning in the server's log. A stdio upstream's
// standard error goes to that log too, a record per line, and the end of its
// process with its exit status.
//
// At Start, an upstream that cannot be reached (unless it is
// [Upstream.Optional]: the gateway then starts without it, and connects
// it in the background), or two upstreams with an
// entity of one name (set a [Upstream.Prefix] or [Upstream.ResourcePrefix]),
// fail the server's Start with an error naming them; so does a mounted
// entity whose name a local entity uses. A server and its apps share one
// namespace of entities: a gateway checks its entities against those of
// its [Config.Peers], the gateways attached before it to the server or to
// its apps. After Start, an entity an upstream adds whose name is taken is left
// out, with an error in the log.
//
// Resource subscriptions go upstream through [Gateway.Subscribe] and
// [Gateway.Unsubscribe], which a server sets as its Options.Subscribe and
// Options.Unsubscribe: on the client session's own upstream session, so
// that the updates an upstream sends that session reach that client as
// they would direct; for client sessions that share the gateway's own
// session, on that one, once per URI, each update reaching every one of
// them once. The hookflow
// command serves a gateway from a configuration file (hookflow gateway
// -config); see docs/gateway.md.
//
// # Filters and prefixes
//
// [Upstream.AllowTools] and [Upstream.DenyTools] choose which of an
// upstream's tools are mounted, by name or path.Match glob; a tool left
// out is neither listed nor callable. [Upstream.ResourcePrefix] serves the
// upstream's resources under URIs of a scheme of their own: "files+"
// turns file:///a into files+file:///a. The upstream reads and is
// subscribed to its own URIs; the URIs of what it answers (a read's
// contents, a tool's resource links and embedded resources) and of its
// update notifications get the prefix.
//
// # Selections and overrides
//
// [Upstream.Select] mounts only what one of its [Selector]s selects, by
// the names and URIs clients see and by a tool's annotations, and
// [Upstream.Overrides] shows a tool under another name, title,
// description or hints ([ToolOverride]); calls reach the upstream under
// its own name. Two servers, each with a gateway whose upstreams select
// differently, serve two audiences from the same upstreams: the hookflow
// command's virtual endpoints are that. An upstream's list change
// reaches a selection's clients only when it changes what they see.
//
// # Health
//
// [Gateway.Health] is the state of every upstream; [Gateways] reports it
// in process to a plugin that shows it (the console), and serves it
// over HTTP, without credentials, to load balancers and readiness probes.
// The hookflow command serves it with serve.health.
//
// # Serving a configuration
//
// Package [github.com/hookflow/hookflow/plugins/gateway/host] is the host
// program: it reads a configuration file, builds the server, its apps and
// their plugins with a gateway for each, and serves, checks or explains
// it; the hookflow gateway command calls it.
//
// # Layout
//
// This package is the mount plugin: each upstream's own session
// (connected at Start, reconnected when it goes away), which upstream
// session serves a request and when one is suspect, what the sessions
// list, the views and filters of what is mounted. The upstream sessions
// themselves (their client, their transport, the relay of what the
// upstream sends about the calls in flight, the backlog of its
// notifications), the pool of those of client sessions (opened once per
// key, bounded by [Upstream.MaxSessions], reaped when idle), the backoff
// between two attempts to reconnect, and what they use that knows
// nothing of mounting (the OAuth client tokens and HTTP transport, the
// queues to client sessions, the log of a process's standard error) are
// its internal package upstream; the host program is package host.
//
// # Changes
//
// A stdio upstream's process no longer inherits the gateway's whole
// environment, which held its clients' tokens (token_env) and the other
// upstreams' credentials: it gets the variables of [DefaultEnv], those of
// [Upstream.InheritEnv] and [Upstream.Env] (see [Environ]). This departs
// from the Go SDK's CommandTransport, which passes the whole environment;
// an upstream that needs more variables names them in InheritEnv.
//
// The notifications of upstreams to a client session wait in a bounded
// queue ([Config.QueueLimit]); those dropped
// from it are counted in [Health.Dropped] and the health report's
// "dropped".
package gateway
