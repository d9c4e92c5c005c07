package settings

import (
	"path/filepath"
	"slices"
	"strings"
)

var geminiEvents = []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "PreCompress"}

// detectAgent tells the agent of a settings file from its directory, then
// its event keys.
func detectAgent(file string, root *node) Agent {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(file)), "/") {
		switch part {
		case ".gemini":
			return AgentGemini
		case ".codex":
			return AgentCodex
		case ".claude", ".claude-plugin":
			return AgentClaude
		}
	}
	if root != nil && root.kind == '{' {
		if hooks := root.get("hooks"); hooks != nil && hooks.kind == '{' {
			for _, k := range hooks.keys {
				if slices.Contains(geminiEvents, k) {
					return AgentGemini
				}
			}
		}
	}
	return AgentClaude
}
