package agent_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/agent"
)

// TestToolNames: each agent's names for the built-in tools declarations
// name as Claude Code does, and the names that map back.
func TestToolNames(t *testing.T) {
	tests := []struct {
		a       agent.Agent
		claude  string
		names   []string
		aliases map[string][]string // each agent name's aliases
	}{
		{agent.Claude, "Bash", []string{"Bash"}, map[string][]string{"Bash": {"run_shell_command"}}},
		{agent.Claude, "Edit", []string{"Edit"}, map[string][]string{"Edit": {"apply_patch", "replace"}}},
		{agent.Claude, "WebSearch", []string{"WebSearch"}, map[string][]string{"WebSearch": {"google_web_search"}}},
		{agent.Claude, "NotebookEdit", nil, map[string][]string{"NotebookEdit": nil}},
		{agent.Codex, "Bash", []string{"Bash"}, map[string][]string{"Bash": {"run_shell_command"}}},
		{agent.Codex, "Write", []string{"apply_patch"}, map[string][]string{"apply_patch": {"Write", "write_file", "Edit", "replace"}}},
		{agent.Codex, "Edit", []string{"apply_patch"}, nil},
		{agent.Codex, "Read", nil, map[string][]string{"read_file": nil}},
		{agent.Gemini, "Bash", []string{"run_shell_command"}, map[string][]string{"run_shell_command": {"Bash"}, "Bash": nil}},
		{agent.Gemini, "Read", []string{"read_file"}, map[string][]string{"read_file": {"Read"}}},
		{agent.Gemini, "Write", []string{"write_file"}, map[string][]string{"write_file": {"Write", "apply_patch"}}},
		{agent.Gemini, "Edit", []string{"replace"}, map[string][]string{"replace": {"Edit", "apply_patch"}}},
		{agent.Gemini, "Glob", []string{"glob"}, map[string][]string{"glob": {"Glob"}}},
		{agent.Gemini, "Grep", []string{"grep_search", "search_file_content"},
			map[string][]string{"grep_search": {"Grep", "search_file_content"}, "search_file_content": {"Grep", "grep_search"}}},
		{agent.Gemini, "WebFetch", []string{"web_fetch"}, map[string][]string{"web_fetch": {"WebFetch"}}},
		{agent.Gemini, "WebSearch", []string{"google_web_search"}, map[string][]string{"google_web_search": {"WebSearch"}}},
	}
	for _, tt := range tests {
		if got := tt.a.ToolNames(tt.claude); !slices.Equal(got, tt.names) {
			t.Errorf("%s.ToolNames(%q) = %q, want %q", tt.a, tt.claude, got, tt.names)
		}
		for name, want := range tt.aliases {
			if got := tt.a.ToolAliases(name); !slices.Equal(got, want) {
				t.Errorf("%s.ToolAliases(%q) = %q, want %q", tt.a, name, got, want)
			}
		}
	}
}

// commitNudge is SEP-2282's headline hook: after a git commit through
// the shell, remind the agent to store what it learned.
var commitNudge = declared.Declaration{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"},
	Context: "You just committed: store what you learned.", Priority: declared.Suggestion}

// TestShellHook: the commit nudge reaches each agent through its own
// shell tool: the exported matcher names the agent's shell tool, and emit
// fires the declaration for the agent's documented hook input.
func TestShellHook(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	if err := srv.Use(declared.New(declared.Config{Declarations: []declared.Declaration{commitNudge}})); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()

	tests := []struct {
		a       agent.Agent
		hook    string
		matcher string
		shell   string // the agent's shell tool, which the matcher must select
	}{
		{agent.Claude, "PostToolUse", `^(?:(?:mcp__.+__)?Bash)$`, "Bash"},
		{agent.Codex, "PostToolUse", `^(?:(?:mcp__.+__)?Bash)$`, "Bash"},
		{agent.Gemini, "AfterTool", `^(?:(?:mcp__.+__)?Bash|run_shell_command)$`, "run_shell_command"},
	}
	for _, tt := range tests {
		t.Run(tt.a.String(), func(t *testing.T) {
			s, _ := tt.a.Settings([]declared.Declaration{commitNudge}, "c", "", time.Second)
			groups := s.Hooks[tt.hook]
			if len(groups) != 1 {
				t.Fatalf("%s groups = %+v, want one", tt.hook, groups)
			}
			if groups[0].Matcher != tt.matcher {
				t.Errorf("%s matcher = %s, want %s", tt.hook, groups[0].Matcher, tt.matcher)
			}
			if !regexpOf(t, groups[0].Matcher).MatchString(tt.shell) {
				t.Errorf("the matcher %s does not select the agent's shell tool %q", groups[0].Matcher, tt.shell)
			}
			var out bytes.Buffer
			err := agent.Emit(context.Background(), agent.EmitConfig{Agent: tt.a, Server: hs.URL}, strings.NewReader(hookInputs[tt.a][tt.hook]), &out)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"hookSpecificOutput":{"hookEventName":"` + tt.hook + `","additionalContext":"[memory · suggestion] You just committed: store what you learned."}}`
			if got := strings.TrimSpace(out.String()); got != want {
				t.Errorf("emit printed %s, want %s", got, want)
			}
		})
	}
}
