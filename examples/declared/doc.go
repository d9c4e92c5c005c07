// Command declared is a memory server in the manner of SEP-2282's Annal
// example, with declared hooks: at session start a host loads what past
// sessions stored (through the server's own search_memories tool), after a
// git commit the agent is reminded to store what it learned, and so on.
// The hooks are //mcp:declare directives: the server's below, each tool's
// on its type; hookgen turns them into DeclaredHooks.
//
//	go run ./examples/declared -demo       # a host's session: what it would inject at each event
//	go run ./examples/declared             # serve on stdio
//	go run ./examples/declared -http :8080 # serve streamable HTTP on /mcp
//
// A coding agent gets the same hooks through hookflow's bridge:
//
//	hookflow hooks export --agent claude --server 'go run ./examples/declared' -o .claude/settings.json
//
//mcp:declare event=session_start contexttool=search_memories contextargs=`{"query": "{project_name}"}` priority=important
//mcp:declare event=post_tool_use toolname=Bash inputcontains="git commit" context="You just committed work in {project_name}. Before moving on: what did you learn that a future session would need? Store it with store_memory."
//mcp:declare event=pre_tool_use toolname=Bash inputcontains="push --force" context="Never force-push a shared branch: ask the user first." priority=required
//mcp:declare event=post_request context="If this turn settled a decision or found a root cause, store it with store_memory."
//mcp:declare event=session_end context="The session is ending: store what you learned before it closes."
package main
