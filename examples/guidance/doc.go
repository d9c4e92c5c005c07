// Command guidance is a notes server with guidance hooks and a session
// gate: directive prompts for the model, composed by RFC 2119 requirement
// level and delivered at the right moment, and tools blocked until the
// model calls session_init.
//
//   - Session guidance (session.go, declared in Go, content in session/):
//     in the instructions of each session's initialize result and in the
//     welcome prompt, composed for the client's capabilities, with storage
//     guidance for the active backend (memory).
//   - Action guidance (tools.go, //mcp:guidance next to each tool, content
//     in <tag>.md beside it, embedded by hookgen): end guidance in a tool's
//     result, running guidance in the client's log, progress guidance in
//     progress notifications, cancel guidance after a cancelled import, and
//     start guidance in a prompt.
//   - The session gate: save_note, list_notes and import_notes are blocked
//     with a directive until session_init succeeds.
//
// Run it:
//
//	go run ./examples/guidance -demo    # print what the model receives at each step
//	go run ./examples/guidance          # serve on stdio
//	go run ./examples/guidance -http 127.0.0.1:8080
package main
