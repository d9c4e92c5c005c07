// Package auth is hookflow's authorization plugin: bearer tokens on HTTP
// through the MCP SDK's auth.RequireBearerToken, and OAuth scopes required
// per tool.
//
// # Scopes per tool
//
// A tool's required scopes are the union of [Config.ToolScopes] and the
// tool's own (framework.Tool.Scopes, which hookgen fills from
// `//mcp:tool … scopes=read,write`). A caller may call the tool only when
// its token (the SDK's auth.TokenInfo, which hooks see as
// Request().TokenInfo) holds all of them.
//
// The plugin registers its call hook at priority.Auth (see package priority:
// after audit, before rate limits, caches and hooks of default priority):
//
//   - tools:call-tool beforeValidation "scopes" refuses a call whose token
//     lacks a scope. The model gets an isError result naming the missing
//     scopes (a [*ScopeError]); later hooks (audit) see the run blocked by
//     the auth plugin's hook.
//   - the plugin's Visible method (the framework's Visibility capability)
//     leaves those tools out of tools/list, before it is paginated; with
//     [Config.Conceal] calling one is "unknown tool" too.
//
// Why an isError result rather than a JSON-RPC error: MCP reserves protocol
// errors for requests the server cannot process at all (malformed, unknown
// method or tool); a refusal the model can act on — ask the user to grant
// a scope, pick another tool — is a tool result with isError, which
// clients show to the model. JSON-RPC has no standard code for
// authorization. Set [Config.Conceal] to make forbidden tools
// indistinguishable from missing ones (-32602 "unknown tool").
//
// # HTTP
//
// [Plugin.Handler] serves the server over streamable HTTP behind
// auth.RequireBearerToken: a request without a valid token gets 401 with a
// WWW-Authenticate challenge before any MCP message is read. Set
// [Config.ResourceMetadataURL] and serve the metadata (RFC 9728, e.g. with
// the SDK's auth.ProtectedResourceMetadataHandler) outside the middleware,
// so that OAuth clients can find the authorization server; Handler logs a
// warning when it is not set, unless the plugin checks static tokens
// ([Config.Tokens]) only: their 401 says instead, in the challenge's
// error_description and in the body, that there is no OAuth and that the
// client must send a bearer token its operator issued. Package oauth (plugins/auth/oauth) is the verifier and
// the metadata for a real authorization server: its AuthConfig sets
// Verifier, ResourceMetadataURL, ScopesSupported and ClockSkew. Idle stateful sessions are closed after
// [DefaultSessionTimeout] unless the options set SessionTimeout (negative:
// never), so that clients that vanish do not hold sessions for ever.
//
// # Calls whose client goes away
//
// Handler hands its options to framework.Server.HTTPHandler unchanged, so
// a server behind the plugin ends calls as it would without it, and nil
// options get the framework's defaults, PropagateRequestCancellation
// among them. That option acts on requests of protocol 2026-07-28, which
// only a stateless handler (opts.Stateless) serves: the POST is the
// request's whole life, so when its client goes away the call's context
// is cancelled. Nil options make a stateful handler, which serves
// 2025-11-25 sessions and refuses 2026-07-28 requests (-32022): set
// Stateless and PropagateRequestCancellation to serve them.
//
// On a stateful session a dropped connection does not cancel the call:
// the streamable HTTP transport specification says a disconnection is not
// to be read as a cancellation (the client may resume the stream). A
// client that gives up on a request sends notifications/cancelled naming
// its ID, which cancels the call's context. Bound the calls of clients
// that send neither with the framework's Options.ToolTimeout.
//
// # Refusing a call: in-band by default, or HTTP 403
//
// By default a tools/call whose token lacks the tool's scopes is refused
// in-band, as over stdio: the model reads an isError result naming the
// missing scopes, and the run is audited like any other.
//
// [Config.ScopeChallenge] answers it instead with HTTP 403 and
// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, the
// MCP authorization spec's step-up signal: an OAuth client can ask the
// user for the missing scope and retry. The streamable transport answers a
// POST with status 200 before the tool runs, so the decision is made
// before the session sees the call: on Handler the transport hands the
// plugin the call it decoded (framework.CheckCalls), and elsewhere
// (Middleware around another handler) the plugin reads the body in front
// of it, once for both (framework.ReadBody); the 403 carries a
// JSON-RPC error body ([CodeInsufficientScope]) so that the SDK's client
// reports a call error and keeps the session. The trade: a client with a
// static token (no OAuth flow) cannot step up, and gets a transport error
// its model never reads instead of a refusal it could act on; and the
// call never reaches the MCP server, so no flow runs and no audit hook
// sees it — set [Config.Audit] to an audit plugin to record these
// refusals (outcome blocked, decided_by the plugin's scope path +
// "/http:scope-challenge"); Handler warns when it is not set. Turn the
// challenge on when your clients do OAuth step-up.
//
// # Without a token
//
// Over stdio and in-memory transports requests carry no token;
// [Config.Unauthenticated] decides: [DenyScoped] (the default) hides and
// refuses every tool that requires a scope, [AllowAll] trusts the local
// client.
//
// # Tokens stay secret
//
// The plugin never logs a token, replaces verifier errors by fixed texts
// (the SDK would send the verifier's message to the client), and removes
// the Authorization header before the request reaches the MCP server, so
// that no hook (an audit plugin logging headers) can see or forward it.
//
// Nor does it log a verifier's error text: verifiers quote the token they
// reject, and in encodings no redaction can list (%q escapes some bytes,
// %x hex-encodes all of them). A rejection is logged with the token's
// fingerprint, the first 12 hex digits of its SHA-256, and — when the
// verifier's error implements slog.LogValuer — the value the verifier
// chose to make loggable.
//
// Attach the plugin to the server (srv.Use) to guard every tool, or to an
// App (app.Use) to guard that app's tools only; either way its list hook
// hides only the tools it guards.
//
// # Configuration files
//
// [Config] is also the plugin's section of a configuration file, such as
// the gateway's; its fields' doc comments are the reference. A file
// cannot hold a Go verifier: it lists static tokens ([Token]), each given
// by value or, to keep it out of the file, by environment variable:
//
//	auth:
//	  tokens:
//	    - {token_env: DEPLOY_TOKEN, user: ci, scopes: [deploy:write]}
//	  tool_scopes: {deploy: [deploy:write]}
//	  allow_anonymous: false
//
// [Config.Validate] reports each mistake at its path in the file
// ("tokens[0].token_env"). The token key, a secret inline in the file,
// is deprecated: the gateway warns about it at its line. A resource
// server of an authorization server is the section's oauth key, which
// package oauth's PluginConfig adds (the hookflow gateway configures the
// plugin with it).
package auth
