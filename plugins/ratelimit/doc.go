// Package ratelimit is hookflow's rate-limit plugin: token-bucket budgets
// for tool calls per session, per principal (authenticated user) and per
// tool, kept in memory or in Redis.
//
// # Budgets
//
// A [Limit] is a token bucket: Burst tokens at most, Rate tokens gained per
// second, one token per call. [Config] sets one Limit per dimension
// (PerSession, PerPrincipal, PerTool, and per-tool overrides in Tools); a
// zero Limit is off. A call is allowed only when every budget that applies
// to it holds a token, and then takes one from each, atomically: a call
// refused by one budget spends nothing from the others.
//
//   - Sessions are keyed by the transport's session ID; sessions without
//     one (stdio, in-memory) each get a key of their own. Stateless HTTP
//     makes a new session per request, so budget those per principal.
//   - The principal is Request().Principal(), the bearer token's UserID
//     (see the auth plugin); requests without one skip that budget.
//   - A tool's budget is shared by all its callers.
//
// # Refusals
//
// The plugin's hook (tools:call-tool beforeValidation "take", priority
// priority.RateLimit, just after the auth plugin) refuses a call over budget
// with a [*flows.Error] of code [flows.CodeLimited] whose cause is a
// [*LimitError]: the model gets an isError result such as
//
//	rate limit: too many calls in this session; retry after 1.5s
//
// Observers (the otel plugin's hookflow.ratelimit.rejections) tell a
// refusal by its code, without importing this package; hooks that run
// later — an audit plugin's finally hook — read the dimension and
// RetryAfter with errors.As on the run's error. Like the auth
// plugin it answers with an isError result rather than a JSON-RPC error:
// the model can act on it (wait, or do something else), and MCP has no
// standard rate-limit error code.
//
// # Backends
//
// A [Backend] takes tokens from several buckets at once. [Memory] is exact
// under concurrency with per-shard locks (no global lock); it is per
// process. [Redis] runs one Lua script per call with the Redis server's
// clock, so several server instances share exact budgets. When the
// backend fails — Redis refusing connections, or accepting and never
// answering — [Config.OnBackendError] decides: [flows.FailClosed] (the
// default) refuses the call with an [*UnavailableError], [flows.FailOpen]
// lets it through; either way within [Config.Timeout].
//
// # Timeouts and late replies
//
// The plugin enforces Config.Timeout itself, whatever the backend or its
// Redis client does with deadlines: a call never waits longer for a
// decision. The backend's request is not abandoned with it: it runs on, off
// the call's path, for up to [LateReplyWait] more. When its reply arrives
// late and granted the call, the tokens it took are given back
// ([Refunder]; Redis is one), so a call refused as unavailable spends no
// budget (and one let through by flows.FailOpen is, like every such call,
// not counted). A grant that arrives after LateReplyWait, or from a
// backend that is not a Refunder, keeps its tokens: each such timed-out
// call then costs its budgets one call they never ran — they allow fewer
// calls, never more.
//
// [RedisClientOptions] builds a go-redis client for this: dials and pool
// waits bounded by the Timeout, reads long enough to see late replies, and
// a pool of [DefaultRedisPoolSize] connections, so that a burst of
// concurrent calls is decided at once rather than queued for a connection
// past the Timeout (go-redis's default pool is 10 per CPU).
//
// # Configuration files
//
// [Config] is also the plugin's section of a configuration file, such as
// the gateway's; its fields' doc comments are the reference:
//
//	ratelimit:
//	  per_session: 10/s
//	  tools: {deploy: 1/m, search: {rate: 0.5, burst: 10}}
//	  on_backend_error: open
//	  redis: {addr: redis.internal:6379, password_env: RATELIMIT_REDIS_PASSWORD}
//
// [Config.Validate] reports each mistake at its path in the file
// ("tools.deploy.burst"). Passwords are named by environment variable,
// never written in the file.
//
// Only tools are limited; resources, prompts and list requests are not.
package ratelimit
