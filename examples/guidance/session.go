package main

import (
	"embed"

	"github.com/hookflow/hookflow/plugins/guidance"
)

// sessionFiles holds the session guidance's content, next to this file.
//
//go:embed session/*.md
var sessionFiles embed.FS

// sessionHooks is the session-level guidance, declared in Go: delivered in
// the instructions of every session's initialize result and by the
// welcome prompt, composed for the session's client. The action guidance
// of the tools is declared next to them with //mcp:guidance (tools.go).
func sessionHooks() []guidance.Hook {
	return []guidance.Hook{
		{Tag: "init-required", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Initialization Required",
			Level: guidance.Must, Priority: 100, FS: sessionFiles, File: "session/init-required.md"},
		{Tag: "welcome", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Welcome",
			Level: guidance.Should, FS: sessionFiles, File: "session/welcome.md"},
		{Tag: "memory-storage", Type: guidance.TypeStorage, Lifecycle: guidance.Start, Name: "Memory storage",
			Level: guidance.Should, FS: sessionFiles, File: "session/memory-storage.md",
			Conditions: guidance.Conditions{Storage: []string{"memory"}}},
		{Tag: "file-storage", Type: guidance.TypeStorage, Lifecycle: guidance.Start, Name: "File storage",
			Level: guidance.Should, FS: sessionFiles, File: "session/file-storage.md",
			Conditions: guidance.Conditions{Storage: []string{"file"}}},
		{Tag: "sampling-tips", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Sampling",
			Level: guidance.May, FS: sessionFiles, File: "session/sampling-tips.md",
			Conditions: guidance.Conditions{Features: []guidance.Feature{guidance.Sampling}}},
		{Tag: "no-deletes", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "No deletes",
			Level: guidance.MustNot, Content: "Never tell the user a note was deleted: this server cannot delete notes."},
	}
}
