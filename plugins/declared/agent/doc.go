// Package agent carries SEP-2282 declarations to coding agents that have
// command hooks but no support for the SEP: Claude Code, Codex and Gemini
// CLI. `hookflow hooks export` writes an agent's hook settings that run
// `hookflow hooks emit` at the right hook events ([Export],
// [Agent.Settings], [Merge]); emit reads the agent's hook input, fires the
// server's declarations at it through package declared/client, and prints
// the agent's JSON output ([Emit]).
//
// # What reaches the model
//
// The SEP's own reference hook greps a $TOOL_INPUT variable and prints
// plain text. Neither works: the agents set no such variable (a hook's
// input is JSON on standard input, [Input]), and an agent shows the plain
// output of most hooks to the user, not to the model. This package writes
// JSON on the channel each agent reads ([Agent.Output]):
//
//	declared event  Claude Code, Codex         Gemini CLI     channel
//	session_start   SessionStart               SessionStart   hookSpecificOutput.additionalContext
//	pre_request     UserPromptSubmit           BeforeAgent    hookSpecificOutput.additionalContext
//	pre_tool_use    PreToolUse                 —              hookSpecificOutput.additionalContext
//	post_tool_use   PostToolUse                AfterTool      hookSpecificOutput.additionalContext
//	post_request    Stop                       AfterAgent     the reason of a refused stop, once
//	session_end     —                          —
//
// No agent's session-end hook reaches the model, and Gemini CLI's
// BeforeTool hook has no context channel: declarations of those events are
// not exported, and export says so. After a turn, the only way to show the
// model text is to refuse its stop with the text as the reason, which
// costs one more turn; emit does it once, never while the agent is already
// continuing for a stop hook (stop_hook_active).
//
// # Tool names
//
// The agents name an MCP server's tools mcp__<server>__<tool>. A
// declaration's tool_name matches either that name or the bare tool name,
// and tool_server the <server> part ([declared.Matcher.Match]), so a
// server's declarations for its own tools fire whatever the user named the
// server in the agent.
//
// The agents' own tools have a name per agent: Claude Code's Bash is
// Gemini CLI's run_shell_command. Declarations name them as Claude Code
// does, as the SEP's examples do ("Bash"); any agent's name works too.
// Export writes each agent's own names in its matchers
// ([Agent.ToolNames]), and emit gives the tool call the other agents'
// names as aliases ([Agent.ToolAliases], [declared.ToolCall.Aliases]), so
// a declaration for "Bash" fires for run_shell_command. The exported
// matchers select at least what the declarations match; emit matches
// again, exactly. docs/declared.md has the table.
//
// # Failures
//
// Emit fails open: an error (the server unreachable, bad input) is
// reported on standard error with exit status 1, which the three agents
// treat as a non-blocking failure; it never exits 2, which would block
// the agent's action.
package agent
