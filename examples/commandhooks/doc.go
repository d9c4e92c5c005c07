// Command commandhooks is a file server whose policy lives in command
// hooks written for a coding agent: .claude/settings.json and the scripts
// in .claude/hooks are what a team would have in its repository for Claude
// Code, unchanged. The PreToolUse script refuses a recursive delete of the
// root or a path that climbs out of it; the PostToolUse script adds a note
// for the model to every delete's result.
//
// Trust the scripts once, after reading them, then serve on stdio:
//
//	go run ./cmd/hookflow hooks trust examples/commandhooks/.claude/settings.json
//	go run ./examples/commandhooks -root /tmp/sandbox -settings examples/commandhooks/.claude/settings.json
//
// The agents name this server's tools mcp__files__<tool>, and so do the
// settings' matchers: the plugin's AgentToolNames makes them match here.
package main
