// Package command is hookflow's command-hook plugin: external commands as
// hooks, configured in the settings format of Claude Code, Codex, Gemini
// CLI or GitHub Copilot, speaking their command-hook contract, OLLM's
// protocol or Copilot's, so that a team runs on its MCP server the policy
// scripts it already runs in its coding agents — safely.
//
//	{"hooks": {"PreToolUse": [{"matcher": "delete", "hooks": [{"type": "command", "command": "/srv/hooks/guard.sh", "timeout": 5}]}]}}
//
// The guide is docs/command-hooks.md: the events and where each runs, the
// input and output contract, failures, the safety model and the trust
// workflow. This doc says what the Go API adds to it. The settings'
// values and the reading of their files are package [settings]'s
// (plugins/command/settings), the trust store package [trust]'s
// (plugins/command/trust); how the processes run is the plugin's own,
// in plugins/command/internal/sandbox, which no other package imports.
//
// # Configuration
//
// [Config] takes a settings file (Config.SettingsFile), more files or
// Claude Code plugin directories ([Config.Imports], each an [Import] read
// as its [settings.Agent] reads it, strict or lenient), a Go value of the same
// shape ([settings.Settings]), or all of them; in a configuration file, the same
// under the fields' yaml names. Each [settings.Hook] has the agents' fields (Type,
// Command, Timeout, Description, If, and an http hook's URL, Headers and
// AllowedEnvVars, a prompt hook's Prompt and Model, or an mcp_tool hook's
// Server, Tool and Input) and hookflow's (Name, Shell, Runner, [settings.Protocol],
// OnFailure rule, MaxConcurrent, RateLimit, Cooldown, Env,
// MaxOutputBytes, [settings.ToolNames]). Errors are [*ConfigError] values at a
// settings file's line and column,
// all at once, in the file's order. [Inspect] compiles a configuration as
// Start would, without starting anything.
//
// # Events and order
//
// An [settings.Event] runs its hooks at one stage of one flow ([settings.Event.Flow],
// [settings.Event.Stage]): PreToolUse in tools:call-tool beforeExecute, PostToolUse
// in afterExecute, PostToolUseFailure in onError, SessionStart in
// session:initialize afterExecute, UserPromptSubmit in prompts:get-prompt
// beforeExecute, PreReadResource and PostReadResource around
// resources:read-resource's execute. Every command hook is a hookflow hook
// of its own, named after it, registered at [Config.Priority] in the
// settings' order, so hooks of one event run one after another, the first
// block ends the chain, and [flows.Context.DecidedBy] names the command
// hook that blocked a run.
//
// # Failures
//
// Every failure of a hook ([FailureKind]) is logged with its kind, exit
// code and the end of its stderr, sent to [Config.Audit], recorded with
// those details in the run as a [*Failure] (see there where later hooks
// find it), and counted by [Plugin.FailureCount]. What it does to the call is the
// hook's [settings.FailureRule]: its own ([settings.Hook.OnFailure]), else its file's
// ([Import.FailClosed]), else the configuration's ([Config.FailClosed]):
// under [settings.RuleAgent], the default, only a decision blocks, as in the
// agents, and a failure they have too lets the call go on, recorded in
// [flows.Context.Failures] (and so by the audit and otel plugins);
// [settings.RuleClosed] blocks on every failure. A hook's decisions (a block, a
// stop, a denied question) abort the run whatever its rule.
//
// # Trust
//
// A hook runs only if the [trust.Store] at [Config.TrustStore] vouches for
// its [trust.Identity], by its command's [trust.Form]: a script's SHA-256 and
// interpreter, a program's SHA-256 and command line, a shell line's
// text, an http hook's URL and headers, a prompt hook's prompt and
// model, or an mcp_tool hook's server, tool, input and
// [settings.Hook.SendArguments]; paths are display names. Attach refuses
// untrusted hooks (or skips them, [SkipUntrusted]) with the command that
// trusts them; "hookflow hooks trust|list|revoke" manage the store through
// [trust.Update], [trust.Store.Trust] and [trust.Store.Revoke] (package
// plugins/command/trust, which holds the store and the identities).
//
// # mcp_tool hooks
//
// An mcp_tool hook calls a tool of the server the plugin is attached to,
// through [framework.Server.CallTool], so that the tool's own flow runs
// for the client whose call the hook runs for; its server is named by
// [Config.ServerName] or mapped to the prefix of its tools by
// [Config.MCPServers] (a gateway's upstream), and the text of its answer
// is read as a command hook's stdout. A hook that would call a tool
// whose call waits on it fails as [FailLoop], which blocks under every
// rule.
//
// # Processes
//
// No shell runs unless the hook opts in ([settings.Hook.Shell]): the command is
// parsed once, at Attach, by bash's grammar (mvdan.cc/sh/v3/syntax), which
// says what needs a shell, and its program resolved to an absolute path. Each run starts the process in
// its own group with the request's data on stdin, a scrubbed environment
// and the project directory as working directory; it is killed (SIGTERM,
// then SIGKILL after [Config.KillGrace]) on timeout, on the request's
// cancellation and by [Plugin.Close], and always reaped. A child that
// left the group (setsid) is killed when the hook ends as well, by the
// run's own cgroup v2 where the server may make one, else by a marker in
// its environment (see the guide's "Safety"). Call Close when
// the server stops.
//
// # Concurrency
//
// A Plugin is safe for concurrent runs once attached. Attach it once: a
// Plugin value belongs to one server or app.
package command
