package command_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Matchers match as each agent's reference says: in Claude Code and Codex
// a matcher of letters, digits, '_' and '|' names tools exactly and
// anything else is an unanchored regular expression; in Gemini CLI a tool
// matcher is always a regular expression.
func TestMatchersAsAgents(t *testing.T) {
	f := newFixture(t)
	f.script("block.sh", bash+"echo blocked >&2; exit 2\n")
	tests := []struct {
		agent   string
		matcher string
		blocks  bool // a call of "delete" is blocked
	}{
		{"claude", "delete", true},
		{"claude", "echo|delete", true},
		{"claude", "del", false},           // a name, not a prefix
		{"claude", "de.*", true},           // a regular expression
		{"claude", "^elete", false},        // anchored by hand
		{"claude", "elet", false},          // letters only: exact
		{"claude", "echo, delete", true},   // a comma-separated list, spaces trimmed
		{"claude", "de-lete|delet", false}, // '-' is a name's: a list of names
		{"codex", "delete|echo", true},
		{"gemini", "del", true}, // Gemini CLI: always a regular expression
		{"gemini", "^echo$", false},
		{"gemini", "echo, delete", false}, // a regular expression, which matches neither
	}
	for _, tt := range tests {
		t.Run(tt.agent+" "+tt.matcher, func(t *testing.T) {
			file := f.path(tt.agent + "-" + strings.NewReplacer("|", "_", "*", "_", "^", "_", "$", "_", ",", "_", " ", "_").Replace(tt.matcher) + ".json")
			event := "PreToolUse"
			if tt.agent == "gemini" {
				event = "BeforeTool"
			}
			settingsFile := `{"hooks": {"` + event + `": [{"matcher": "` + tt.matcher + `", "hooks": [{"type": "command", "command": "bash block.sh"}]}]}}`
			if err := os.WriteFile(file, []byte(settingsFile), 0o644); err != nil {
				t.Fatal(err)
			}
			var agent settings.Agent
			if err := agent.UnmarshalText([]byte(tt.agent)); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.Imports = []command.Import{{File: file, Agent: agent, Dir: f.dir}}
			r := f.serve(cfg).Call("delete", DeleteIn{Path: "x"})
			if r.IsError() != tt.blocks {
				t.Errorf("blocked: %v, want %v (%s)", r.IsError(), tt.blocks, r.Text())
			}
		})
	}
}

// A matcher that selects none of the server's tools is a guard that never
// runs: the first listing of the tools warns of it, once, with a hint for
// a comma-separated list read as a regular expression.
func TestUnmatchedMatcherWarning(t *testing.T) {
	f := newFixture(t)
	f.script("block.sh", bash+"exit 0\n")
	root := copyCorpus(t, f, "claude")
	gemini := f.path("settings.json")
	if err := os.WriteFile(gemini, []byte(`{"hooks": {"BeforeTool": [{"matcher": "echo, delete", "hooks": [{"type": "command", "command": "bash block.sh"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: root + "/.claude/settings.json",
		Shell: []string{"PostToolUse[0].hooks[0]", "UserPromptSubmit[0].hooks[0]"}}, {File: gemini, Agent: settings.AgentGemini, Dir: f.dir}}
	s := f.serve(cfg)
	s.Session().ToolNames()
	s.Session().ToolNames()
	for _, want := range []string{`matcher="Edit, Write"`, `matcher="echo, delete (read as a regular expression: in this file's format, names are separated by \"|\")"`} {
		if len(f.log.find("its matcher selects none of the server's tools", want)) != 1 {
			t.Errorf("no warning with %s in %q", want, f.log.find("matcher"))
		}
	}
	if got := f.log.find("its matcher selects none"); len(got) != 2 {
		t.Errorf("%d warnings, want 2 (one per matcher, once): %q", len(got), got)
	}
}

// A matcher written for the name toolNames gives a server's tool selects
// that tool: no start-up warning for it, while the same matcher without
// the mapping warns.
func TestUnmatchedMatcherWithToolNames(t *testing.T) {
	f := newFixture(t)
	f.script("guard.sh", bash+"exit 0\n")
	mapped := settings.Hook{Name: "mapped", Command: "bash guard.sh",
		ToolNames: settings.ToolNames{plugintest.ToolEcho: {Name: "Bash", Arguments: map[string]string{"text": "command"}}}}
	bare := settings.Hook{Name: "bare", Command: "bash guard.sh"}
	cfg := f.config(settings.Settings{"PreToolUse": {{Matcher: "Bash", Hooks: []settings.Hook{mapped, bare}}}})
	s := f.serve(cfg)
	s.Session().ToolNames()
	got := f.log.find("its matcher selects none of the server's tools")
	if len(got) != 1 || len(f.log.find("its matcher selects none of the server's tools", `hook="bare"`)) != 1 {
		t.Errorf("warnings %q, want one, for the hook without toolNames", got)
	}
}
