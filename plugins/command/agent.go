package command

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

var geminiEvents = []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "PreCompress"}

// detectAgent tells the agent of a settings file from its directory, then
// its event keys.
func detectAgent(file string, root *node) settings.Agent {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(file)), "/") {
		switch part {
		case ".gemini":
			return settings.AgentGemini
		case ".codex":
			return settings.AgentCodex
		case ".claude", ".claude-plugin":
			return settings.AgentClaude
		}
	}
	if root != nil && root.kind == '{' {
		if hooks := root.get("hooks"); hooks != nil && hooks.kind == '{' {
			for _, k := range hooks.keys {
				if slices.Contains(geminiEvents, k) {
					return settings.AgentGemini
				}
			}
		}
	}
	return settings.AgentClaude
}
