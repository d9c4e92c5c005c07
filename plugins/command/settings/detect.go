package settings

import (
	"path/filepath"
	"slices"
	"strings"
)

// geminiEvents are event keys only Gemini CLI's settings use.
var geminiEvents = []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "PreCompress"}

// detectAgent tells the agent of a settings file from its directory, then
// its shape: a top-level "version" (GitHub Copilot's), or Gemini CLI's
// event keys.
func detectAgent(file string, root *node) Agent {
	parts := strings.Split(filepath.ToSlash(filepath.Dir(file)), "/")
	for i, part := range parts {
		switch part {
		case ".github":
			if i+1 < len(parts) && parts[i+1] == "hooks" {
				return AgentCopilot
			}
		case ".gemini":
			return AgentGemini
		case ".codex":
			return AgentCodex
		case ".claude", ".claude-plugin":
			return AgentClaude
		}
	}
	if root != nil && root.kind == '{' {
		if root.get("version") != nil {
			return AgentCopilot
		}
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
