// Package sessiongate is hookflow's session gate: tools that are blocked,
// with a directive the model reads, until the session has been
// initialized (MCP Toolkit's session state machine, in Go).
//
// # States
//
// A session moves forward only:
//
//	uninitialized → initialized → ready → working
//
// The init tool ([Config.InitTool], "session_init") moves it to
// initialized when it succeeds; the ready tool ([Config.ReadyTool]), when
// set, then moves it to ready (without one, the init tool moves it
// straight to ready); the first successful call of a gated tool in a ready
// session moves it to working. Gated tools are those of
// [Config.Requires], or every tool but the init and ready tools and
// [Config.Exempt] with [Config.RequireAll]; the ready tool itself needs an
// initialized session. Tools are gated by name, so tools mounted from an
// upstream server by the gateway are gated like local ones.
//
// # Blocking
//
// The gate's check (tools:call-tool beforeValidation "check", at
// [DefaultPriority]: after auth, before rate limits) refuses a call of a
// gated tool in a session that has not reached the state it needs. The
// model gets an isError result with a directive:
//
//	Tool "my_tool" requires session initialization. You MUST call session_init first before using any other tools. This is a MANDATORY first action.
//
// ([Config.Blocked] words it otherwise); the run's DecidedBy is the gate's
// hook ("<server>/plugin:sessiongate/tools:call-tool/beforeValidation/check"),
// and hooks that run later find the [*BlockedError] with errors.As.
//
// A successful call that moves the session forward is recorded by the
// afterExecute hook "record" (at priority.Min, after every hook that may
// turn the result into an error): each [Transition] goes to
// [Config.OnTransition] and into the run's state ([Plugin.Transitions],
// for finally hooks such as an audit plugin's), and the text of
// [Config.Next] is added to the result, e.g. "The session is ready: you
// may now use the other tools."
//
// With [Config.Unlist] the gate also attaches a framework.Visibility
// plugin, "sessiongate-unlist": gated tools are left out of tools/list
// while the caller's session cannot call them yet, and stay callable, so
// that a call still gets the directive. Without it the gate changes no
// list.
//
// # Sessions and stores
//
// [Config.Key] says which session a request belongs to. [BySession], the
// default, uses the transport's session ID (stateful streamable HTTP) or
// the connection (stdio, in-memory). Stateless HTTP has no session: every
// request would look new, so BySession gives no key and gated calls are
// refused with an [*UnavailableError] (and a server-side log line); key
// those requests with [ByPrincipal], [ByHeader] or a function of your own.
//
// A [Store] keeps the states. [Memory] is per process, and forgets a
// session idle for [DefaultIdle]. [Redis] shares them between the
// instances behind a load balancer (go-redis, one atomic script per call);
// each call is bounded by [Config.Timeout], and when the store fails
// [Config.OnStoreError] decides: refuse gated calls ([flows.FailClosed],
// the default) or let them through ([flows.FailOpen]). Calls of tools
// that are not gated never touch the store.
//
// # Configuration files
//
// [Config] is also the gate's section of a configuration file, such as
// the gateway's; its fields' doc comments are the reference. What Go sets
// with functions a file sets with words: the key ([Config.SessionKey]:
// session, principal or header:<name>), the texts ([Messages], with
// {tool}, {call} and {ready_tool}), the store (a redis section, its
// password named by environment variable):
//
//	sessiongate:
//	  require_all: true
//	  exempt: [help]
//	  key: header:X-Conversation
//	  redis: {addr: redis.internal:6379}
//	  on_store_error: closed
//	  messages: {uninitialized: "Call {call} before {tool}."}
//
// [Config.Validate] reports each mistake at its path in the file
// ("messages.uninitialized").
//
// # Guidance
//
// The gate enforces what guidance asks. Pair it with a MUST hook of the
// guidance plugin at the session's start ("You must call session_init
// before using any other tools"), so that the model knows before it is
// blocked.
package sessiongate
