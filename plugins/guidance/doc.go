// Package guidance is hookflow's guidance plugin: hooks that are not code
// but directive prompts for the host's LLM, in markdown, composed by RFC
// 2119 requirement level and delivered at the right moment of a session or
// a request (MCP Toolkit's hook system, in Go).
//
// # Hooks
//
// A [Hook] has an app, a file-safe tag, a [Type] (session, action,
// storage, config), a [Lifecycle] (start, running, progress, cancel, end),
// a name, a requirement [Level] (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY),
// a priority (default 50, higher first within a level), [Conditions]
// (storage backends, client features, configuration values) and content:
// inline, or the markdown file <tag>.md (or File) in an fs.FS, such as an
// embed.FS next to the Go file that declares the hook:
//
//	//go:embed welcome.md
//	var content embed.FS
//
//	var welcome = guidance.Hook{Tag: "welcome", Type: guidance.TypeSession, Lifecycle: guidance.Start,
//		Name: "Welcome", Level: guidance.Should, FS: content}
//
// Its ID is "app:type:lifecycle:tag", unique in a [Registry] (register,
// query, get, has, unregister, all, clear). Tools, prompts and resources
// declare their action guidance with hookgen's //mcp:guidance directive,
// which embeds the content file and generates a HookflowGuidance function
// returning the hooks; session guidance is declared in Go.
//
// # Loading and composing
//
// A [Loader] reads content files and caches them. A file that is missing,
// unreadable or empty is a *[LoadError]: the hook is left out, the
// composition records it as failed, and the plugin logs it to the client
// (MCP logging, level error) and to the server's log.
//
// A [Composer] writes one markdown text: the RFC 2119 banner, then a
// section per level in the order MUST, MUST NOT, SHOULD, SHOULD NOT, MAY,
// each with its preamble and its hooks by descending priority (ties in
// registration order), separated by "---". Hooks whose conditions do not
// hold are skipped. The result, [Composed], is the text and its
// transparency record: the hooks included, skipped (with the conditions
// that failed) and failed (with the error), and notices such as
//
//	2 hooks were skipped (conditions not met): memory-tips (requires storage: memory), sampling-guide (requires features: sampling).
//
// which the plugin sends to the client at MCP logging level notice, once
// per session.
//
// # Delivery
//
// Conditions are evaluated per session: storage and configuration values
// are the plugin's ([Config.Storage], [Config.Settings]), features those
// the session's client declared (sampling, elicitation, roots). Where a
// hook goes depends on its target ([Hook.On]), type and lifecycle:
//
//   - Session start (no target; type session, storage or config;
//     lifecycle start): appended to the instructions of the session's
//     initialize (or server/discover) result, by a session:initialize
//     afterExecute hook of default priority (hooks of lower priority may
//     rewrite the result further), and returned by the welcome prompt
//     ([Config.WelcomePrompt], "welcome") as one message whose role is
//     [Config.Role]: "assistant" by default, as MCP Toolkit's
//     documentation says; its code sent "user", which the setting allows.
//     Notices of the initialize composition wait for the client's
//     logging/setLevel (a logging:set-level hook sends them), as the client
//     cannot receive log messages before.
//   - A tool's calls (target Tool(name) or every tool; an action hook
//     without a target is delivered with every tool call):
//     start: a text block added to the call's result (framework.AddContext:
//     on success, early answers and isError results alike;
//     structuredContent untouched), for calls that reach beforeExecute;
//     running: sent to the client's log (level info) when execute begins,
//     on the request's context (over streamable HTTP, on the request's
//     stream), appended to the system prompt of every sampling request the
//     call makes (sampling:create-message), and readable by the tool with
//     [Plugin.Running]; progress: appended to the message of the progress
//     notifications the call sends, whoever sends them (framework.Progress,
//     the session's NotifyProgress, an upstream server the gateway
//     forwards: notifications:from-server), each hook once; end: a text
//     block added to the result of a call that reached execute; cancel: in
//     place of end when the call's context was cancelled: in the result
//     when the call timed out, else (the client cancelled, and reads no
//     result) to the client's log and, as a text block, into the result of
//     the session's next tool call that reaches execute.
//   - A prompt's gets (target Prompt(name)): start guidance is a message
//     before the prompt's messages, end guidance one after them, of role
//     [Config.Role].
//   - A resource's reads (target Resource(uri)): start and end guidance are
//     text/markdown contents appended after the resource's, marked with
//     [MetaKey] in their _meta.
//   - Hooks tied to one request ([Plugin.AddForRequest]) join its
//     running, progress, cancel and end guidance, and are dropped when it
//     ends.
//
// A hook that can never be delivered (a session hook with lifecycle end; a
// prompt hook with lifecycle progress) is an error at Attach when it comes
// from [Config.Hooks], and a server-side warning when registered later.
//
// Compositions are cached per delivery point and client feature set; a
// change to the registry recompiles the points at the next delivery, and
// [Plugin.Reload] reads the content files again. The hooks on what the
// server sends (notifications:from-server, sampling:create-message) are
// registered only once progress or running hooks exist, so a server
// without them sends its notifications without a run.
//
// # Configuration file
//
// [Config] is also the plugin's section of a configuration file (the
// gateway's). Hooks are written with their yaml names, their content
// inline or in markdown files of content_dir (a hook's file, default
// <tag>.md, is a path inside that directory):
//
//	app: notes
//	content_dir: guidance
//	storage: [memory]
//	hooks:
//	  - {tag: init-required, type: session, lifecycle: start, level: MUST, priority: 100}
//	  - {tag: save-note, type: action, lifecycle: end, level: SHOULD, on: "tool:save_note"}
//	  - {tag: memory-tips, type: storage, lifecycle: start, level: MAY, conditions: {storage: [memory]}}
//
// [Config.Validate] names each problem by its path ("hooks[1].level").
//
// # Sessions
//
// What the plugin remembers per session (pending log messages, notices
// already sent, cancel guidance for the next result) lives in the process
// and is dropped with the session. Over stateless HTTP every request is a
// session of its own: instructions still reach the client that
// initializes, notices are sent with each request that composes them, and
// cancel guidance reaches the client's log only.
//
// # Enforcement
//
// Guidance asks; it does not enforce. The sessiongate plugin blocks tools
// until the session is initialized, with a directive the model reads.
package guidance
