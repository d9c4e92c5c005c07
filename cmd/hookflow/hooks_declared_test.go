package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
)

// declaringServer serves a server with one declaration per event over
// HTTP and returns its URL.
func declaringServer(t *testing.T) string {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	type in struct {
		Query string `json:"query"`
	}
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "recall", Description: "recall"}, func(_ context.Context, _ *mcp.CallToolRequest, q in) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "memories of " + q.Query}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Use(declared.New(declared.Config{Declarations: []declared.Declaration{
		{Event: declared.SessionStart, ContextTool: "recall", ContextToolArgs: json.RawMessage(`{"query":"{project_name}"}`), Priority: declared.Important},
		{Event: declared.SessionEnd, Context: "bye", Priority: declared.Suggestion},
		{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "Never push to main.", Priority: declared.Required},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}, Context: "You committed.", Priority: declared.Suggestion},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestExportCommand(t *testing.T) {
	url := declaringServer(t)

	code, stdout, stderr := runCmd(t, "", "hooks", "export", "--agent", "claude", "--server", url, "--bin", "/opt/hookflow", "--trust", "full")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Args          []string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not settings JSON: %v\n%s", err, stdout)
	}
	// Claude Code's exec form: the program, and its argv with no shell.
	wantArgs := []string{"hooks", "emit", "--agent", "claude", "--server", url, "--trust", "full"}
	if len(s.Hooks) != 3 || s.Hooks["PreToolUse"][0].Matcher != "^(?:(?:mcp__.+__)?Bash)$" || s.Hooks["SessionStart"][0].Hooks[0].Command != "/opt/hookflow" ||
		!slices.Equal(s.Hooks["SessionStart"][0].Hooks[0].Args, wantArgs) || s.Hooks["PostToolUse"][0].Hooks[0].Timeout != 35 {
		t.Errorf("settings:\n%s\nwant /opt/hookflow with args %q", stdout, wantArgs)
	}
	if !strings.Contains(stderr, "claude has no hook that shows text to the model at session_end") {
		t.Errorf("stderr does not explain the event left out: %s", stderr)
	}
	if strings.Contains(stderr, "from version") {
		t.Errorf("a claude export warns of a version: %s", stderr)
	}
	code, _, stderr = runCmd(t, "", "hooks", "export", "--agent", "codex", "--server", url)
	if want := "codex shows pre_tool_use text to the model from version 0.129.0 on; an older codex reports the PreToolUse hook as failed"; code != exitOK || !strings.Contains(stderr, want) {
		t.Errorf("codex export: exit %d, stderr %s; want %q", code, stderr, want)
	}

	// Merged into a file, twice: the second export replaces the first.
	file := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(file, []byte(`{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code, _, stderr := runCmd(t, "", "hooks", "export", "--agent", "gemini", "--server", url, "-o", file); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	b, _ := os.ReadFile(file)
	got := string(b)
	if strings.Count(got, "hooks emit --agent gemini") != 2 || !strings.Contains(got, `"model": "opus"`) || !strings.Contains(got, "notify-send done") ||
		!strings.Contains(got, `"name": "hookflow-memory"`) || !strings.Contains(got, `"timeout": 35000`) {
		t.Errorf("merged file:\n%s", got)
	}

	// A claude file a line-form export wrote gets the exec form in its place.
	file = filepath.Join(t.TempDir(), "settings.json")
	old := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"hookflow hooks emit --agent claude --server ` + url + `"}]}]}}`
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, "", "hooks", "export", "--agent", "claude", "--server", url, "--bin", "hookflow", "-o", file); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(file)
	if got := string(b); strings.Contains(got, "hooks emit --agent claude") || strings.Count(got, `"args": [`) != 3 {
		t.Errorf("claude file after an exec-form export:\n%s", got)
	}

	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--agent", "cluade", "--server", url}, exitUsage, `--agent: unknown agent "cluade" (did you mean "claude"?)`},
		{[]string{"--server", url}, exitUsage, "--agent is required"},
		{[]string{"--agent", "codex"}, exitUsage, "--server is required"},
		{[]string{"--agent", "codex", "--server", "go", "run", "."}, exitUsage, `unexpected argument "run"`},
		{[]string{"--agent", "codex", "--server", url, "--trust", "ful"}, exitUsage, `--trust: want "trusted" or "full", got "ful" (did you mean "full"?)`},
		{[]string{"--agent", "codex", "--server", "http://127.0.0.1:1/mcp"}, exitFailed, "connecting to http://127.0.0.1:1/mcp"},
		{[]string{"--agent", "codex", "--server", url, "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "hooks.json")}, exitFailed, "no such file or directory"},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(t, "", append([]string{"hooks", "export"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("export %q: exit %d, stderr %q; want %d, %q", tt.args, code, stderr, tt.code, tt.stderr)
		}
	}
}

// TestEmitCommand runs emit with each agent's hook input, as documented by
// the agents, and checks the JSON it prints and that it never exits 2.
func TestEmitCommand(t *testing.T) {
	url := declaringServer(t)
	tests := []struct {
		agent, input, want string
	}{
		{"claude", `{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[memory · important] memories of shop"}}`},
		{"claude", `{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git commit -m x"},"tool_response":{"stdout":"ok"},"tool_use_id":"toolu_1"}`,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"[memory · suggestion] You committed."}}`},
		{"codex", `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"git push"},"tool_use_id":"call_1"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"[memory · important] Never push to main."}}`},
		{"gemini", `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/shop","hook_event_name":"AfterTool","timestamp":"2026-09-01T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"git commit -m x"},"tool_response":{"llmContent":"ok","returnDisplay":"ok"}}`,
			`{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"[memory · suggestion] You committed."}}`},
		{"gemini", `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/shop","hook_event_name":"BeforeAgent","timestamp":"2026-09-01T10:00:00Z","prompt":"hi"}`,
			`{}`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, tt.input, "hooks", "emit", "--agent", tt.agent, "--server", url)
		if code != exitOK || strings.TrimSpace(stdout) != tt.want {
			t.Errorf("emit --agent %s < %s\nexit %d, stdout %s, stderr %s\nwant %s", tt.agent, tt.input, code, stdout, stderr, tt.want)
		}
	}

	code, stdout, stderr := runCmd(t, tests[0].input, "hooks", "emit", "--agent", "claude", "--server", url, "--project", "other", "-v")
	if code != exitOK || !strings.Contains(stdout, "memories of other") || !strings.Contains(stderr, "memory#0 session_start important injected") {
		t.Errorf("emit -v --project: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}

	for _, tt := range []struct {
		args   []string
		input  string
		stderr string
	}{
		{[]string{"--agent", "claude"}, tests[0].input, "--server is required"},
		{[]string{"--agent", "claude", "--server", url, "--bogus"}, tests[0].input, "flag provided but not defined: -bogus"},
		{[]string{"--agent", "claude", "--server", url, "--max-bytes", "0"}, tests[0].input, "--max-bytes must be positive"},
		{[]string{"--agent", "claude", "--server", url}, "not json", "the hook input is not JSON"},
		{[]string{"--agent", "claude", "--server", "http://127.0.0.1:1/mcp"}, tests[0].input, "connecting to http://127.0.0.1:1/mcp"},
	} {
		code, stdout, stderr := runCmd(t, tt.input, append([]string{"hooks", "emit"}, tt.args...)...)
		if code != exitFailed || stdout != "" || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("emit %q: exit %d (want 1, never 2), stdout %q, stderr %q; want %q", tt.args, code, stdout, stderr, tt.stderr)
		}
	}
}
