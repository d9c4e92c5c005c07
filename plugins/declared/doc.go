// Package declared implements SEP-2282, server-declared hooks, on the
// server: a hookflow server declares hooks, and the clients that support
// them inject the hooks' text into their agent's context at their own
// lifecycle events. The server never runs code on the client: a
// declaration is data, and the client decides what to honour.
//
// # Declarations
//
// A [Declaration] names an [Event] (session_start, session_end,
// pre_tool_use, post_tool_use, pre_request, post_request), an optional
// [Matcher] for the two tool events (a tool_name glob, an input_contains
// substring and a tool_server name, all of which must match), the text to
// inject (static Context, or ContextTool: a tool of this server, called by
// the client with ContextToolArgs, whose result becomes the text) and a
// [Priority] (suggestion, important, required). Context and the arguments
// may hold the template variables {project_name}, {tool_name},
// {tool_input}, {tool_output} and {session_id}, which the client expands
// ([Expand]); unknown ones pass through unchanged.
//
// # The plugin
//
// [New] returns a framework plugin that advertises the declarations under
// experimental.hooks of the initialize result (and of server/discover, on
// protocol 2026-07-28), the capability path the SEP prototypes:
//
//	srv.Use(declared.New(declared.Config{Declarations: DeclaredHooks()}))
//
// It negotiates as the SEP says: a client that lists supported_events in
// its experimental.hooks is sent the declarations of those events only; a
// client without experimental.hooks is sent nothing (unless
// Config.Unnegotiated); nor is a client whose experimental.hooks has no
// supported_events list, which the SEP's ClientHooksCapability requires
// (the server logs why at debug level). Every other capability is kept. Declarations are
// validated at Attach, and every context_tool must name a tool of the
// server when it has started (a typo fails Start). A session:initialize
// afterExecute hook with a priority below [AdvertisePriority] can rewrite
// what one session is sent, with [Advertised].
//
// hookgen generates declarations from //mcp:declare directives: on a tool
// type, for that tool (the matcher's tool_name defaults to the tool's own
// name), or in the package clause's doc comment, for the server; the
// generated DeclaredHooks function returns them.
//
// # Clients
//
// Package declared/client evaluates declarations in a host built on the
// MCP Go SDK's client, under the policy the SEP leaves to clients (trust,
// approval, caps, rates, audit). Package declared/agent carries them to
// coding agents' command hooks (Claude Code, Codex, Gemini CLI), which
// `hookflow hooks export` and `hookflow hooks emit` wire up.
//
// # Reading capabilities
//
// [DeclareSupport] puts a client's supported events in its capabilities;
// [SupportedEvents] reads them on the server; [ServerDeclarations] reads a
// server's declarations on the client.
package declared
