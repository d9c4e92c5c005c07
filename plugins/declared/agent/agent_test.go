package agent_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/agent"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

func TestParse(t *testing.T) {
	for _, name := range agent.Names() {
		a, err := agent.Parse(name)
		if err != nil || a.String() != name {
			t.Errorf("Parse(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := agent.Parse("cluade"); err == nil || !strings.Contains(err.Error(), `did you mean "claude"?`) {
		t.Errorf("Parse(cluade) = %v", err)
	}
	if _, err := agent.Parse("cursor"); err == nil || !strings.Contains(err.Error(), "agents: claude, codex, gemini") {
		t.Errorf("Parse(cursor) = %v", err)
	}
}

func TestEvents(t *testing.T) {
	claudeLike := []declared.Event{declared.SessionStart, declared.PreToolUse, declared.PostToolUse, declared.PreRequest, declared.PostRequest}
	tests := []struct {
		a    agent.Agent
		want []declared.Event
		hook map[declared.Event]string
	}{
		{agent.Claude, claudeLike, map[declared.Event]string{
			declared.SessionStart: "SessionStart", declared.PreRequest: "UserPromptSubmit", declared.PreToolUse: "PreToolUse",
			declared.PostToolUse: "PostToolUse", declared.PostRequest: "Stop"}},
		{agent.Codex, claudeLike, map[declared.Event]string{
			declared.SessionStart: "SessionStart", declared.PreRequest: "UserPromptSubmit", declared.PreToolUse: "PreToolUse",
			declared.PostToolUse: "PostToolUse", declared.PostRequest: "Stop"}},
		{agent.Gemini, []declared.Event{declared.SessionStart, declared.PostToolUse, declared.PreRequest, declared.PostRequest}, map[declared.Event]string{
			declared.SessionStart: "SessionStart", declared.PreRequest: "BeforeAgent", declared.PostToolUse: "AfterTool", declared.PostRequest: "AfterAgent"}},
	}
	since := map[agent.Agent]map[declared.Event]string{agent.Codex: {declared.PreToolUse: "0.129.0"}}
	for _, tt := range tests {
		for _, e := range declared.Events() {
			if got := tt.a.Since(e); got != since[tt.a][e] {
				t.Errorf("%s.Since(%s) = %q, want %q", tt.a, e, got, since[tt.a][e])
			}
		}
		if got := tt.a.Events(); !slices.Equal(got, tt.want) {
			t.Errorf("%s.Events() = %v, want %v", tt.a, got, tt.want)
		}
		for _, e := range declared.Events() {
			name, ok := tt.a.HookEvent(e)
			if want, has := tt.hook[e]; ok != has || name != want {
				t.Errorf("%s.HookEvent(%s) = %q, %v; want %q", tt.a, e, name, ok, want)
			}
			if ok {
				if back, ok := tt.a.Event(name); !ok || back != e {
					t.Errorf("%s.Event(%q) = %v, %v", tt.a, name, back, ok)
				}
			}
		}
	}
}

// hookInputs are stdin samples with the fields each agent documents for
// each hook event it has that carries a declared event.
var hookInputs = map[agent.Agent]map[string]string{
	agent.Claude: {
		"SessionStart":     `{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/shop/abc123.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-5"}`,
		"UserPromptSubmit": `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"fix the build"}`,
		"PreToolUse":       `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit -m 'fix'","description":"Commit the fix"},"tool_use_id":"toolu_01"}`,
		"PostToolUse":      `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git commit -m 'fix'","description":"Commit the fix"},"tool_response":{"stdout":"[main 1a2b3c4] fix","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01"}`,
		"Stop":             `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/shop","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}`,
	},
	agent.Codex: {
		"SessionStart":     `{"session_id":"019a","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"SessionStart","model":"gpt-5-codex","permission_mode":"default","source":"startup"}`,
		"UserPromptSubmit": `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"UserPromptSubmit","model":"gpt-5-codex","permission_mode":"default","prompt":"fix the build"}`,
		"PreToolUse":       `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"git commit -m fix"},"tool_use_id":"call_1"}`,
		"PostToolUse":      `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"PostToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"git commit -m fix"},"tool_response":"[main 1a2b3c4] fix","tool_use_id":"call_1"}`,
		"Stop":             `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/home/u/shop","hook_event_name":"Stop","model":"gpt-5-codex","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Done."}`,
	},
	agent.Gemini: {
		"SessionStart": `{"session_id":"g-77","transcript_path":"/home/u/.gemini/tmp/g-77.json","cwd":"/home/u/shop","hook_event_name":"SessionStart","timestamp":"2026-09-01T10:00:00Z","source":"startup"}`,
		"BeforeAgent":  `{"session_id":"g-77","transcript_path":"/t.json","cwd":"/home/u/shop","hook_event_name":"BeforeAgent","timestamp":"2026-09-01T10:00:01Z","prompt":"fix the build"}`,
		"AfterTool":    `{"session_id":"g-77","transcript_path":"/t.json","cwd":"/home/u/shop","hook_event_name":"AfterTool","timestamp":"2026-09-01T10:00:02Z","tool_name":"run_shell_command","tool_input":{"command":"git commit -m fix"},"tool_response":{"llmContent":"[main 1a2b3c4] fix","returnDisplay":"[main 1a2b3c4] fix"}}`,
		"AfterAgent":   `{"session_id":"g-77","transcript_path":"/t.json","cwd":"/home/u/shop","hook_event_name":"AfterAgent","timestamp":"2026-09-01T10:00:03Z","prompt":"fix the build","prompt_response":"Done.","stop_hook_active":false}`,
	},
}

func TestFiring(t *testing.T) {
	for a, inputs := range hookInputs {
		for hook, raw := range inputs {
			t.Run(a.String()+"/"+hook, func(t *testing.T) {
				in, err := agent.ReadInput(strings.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				f, err := a.Firing(in)
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := a.Event(hook); f.Event != want {
					t.Errorf("event %v, want %v", f.Event, want)
				}
				if f.SessionID == "" || f.SessionID != in.SessionID {
					t.Errorf("session %q", f.SessionID)
				}
				if !f.Event.IsTool() {
					if f.Tool != nil {
						t.Errorf("tool %+v outside a tool event", f.Tool)
					}
					return
				}
				if f.Tool == nil || f.Tool.Name == "" || !strings.Contains(string(f.Tool.Input), "git commit") {
					t.Fatalf("tool call %+v", f.Tool)
				}
				if (f.Event == declared.PostToolUse) != (len(f.Tool.Output) > 0) {
					t.Errorf("tool output %q at %s", f.Tool.Output, f.Event)
				}
			})
		}
	}
	in, _ := agent.ReadInput(strings.NewReader(`{"hook_event_name":"SessionEnd","reason":"exit"}`))
	if _, err := agent.Claude.Firing(in); err == nil || !strings.Contains(err.Error(), `claude hook event "SessionEnd" carries no declared event (events: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop)`) {
		t.Errorf("Firing(SessionEnd) = %v", err)
	}
	for _, tt := range []struct{ in, err string }{
		{`not json`, "the hook input is not JSON: invalid character 'o' in literal null (expecting 'u') at byte 2"},
		{`{"session_id":"x"}`, "the hook input has no hook_event_name"},
		{`{"hook_event_name":7}`, "the hook input: json: cannot unmarshal number"},
	} {
		if _, err := agent.ReadInput(strings.NewReader(tt.in)); err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("ReadInput(%q) = %v, want %q", tt.in, err, tt.err)
		}
	}
}

func TestOutput(t *testing.T) {
	tests := []struct {
		a      agent.Agent
		hook   string
		active bool
		text   string
		want   string
	}{
		{agent.Claude, "SessionStart", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`},
		{agent.Claude, "UserPromptSubmit", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`},
		{agent.Claude, "PreToolUse", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"ctx"}}`},
		{agent.Claude, "PostToolUse", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx"}}`},
		{agent.Claude, "Stop", false, "ctx", `{"decision":"block","reason":"ctx"}`},
		{agent.Claude, "Stop", true, "ctx", `{}`},
		{agent.Codex, "PostToolUse", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx"}}`},
		{agent.Codex, "Stop", false, "ctx", `{"decision":"block","reason":"ctx"}`},
		{agent.Gemini, "BeforeAgent", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"}}`},
		{agent.Gemini, "AfterTool", false, "ctx", `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"ctx"}}`},
		{agent.Gemini, "AfterAgent", false, "ctx", `{"decision":"deny","reason":"ctx"}`},
		{agent.Gemini, "AfterAgent", true, "ctx", `{}`},
		{agent.Gemini, "SessionStart", false, "", `{}`},
	}
	for _, tt := range tests {
		got, err := tt.a.Output(&agent.Input{HookEventName: tt.hook, StopHookActive: tt.active}, tt.text)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s %s: Output = %s, %v; want %s", tt.a, tt.hook, got, err, tt.want)
		}
	}
	if _, err := agent.Gemini.Output(&agent.Input{HookEventName: "BeforeTool"}, "x"); err == nil {
		t.Error("Gemini BeforeTool has an output")
	}
	got := agent.Render([]client.Injection{{Server: "memory", Priority: declared.Important, Text: "a"}, {Server: "lint", Priority: declared.Suggestion, Text: "b"}})
	if want := "[memory · important] a\n\n[lint · suggestion] b"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

func TestSettings(t *testing.T) {
	decls := []declared.Declaration{
		{Event: declared.SessionStart, ContextTool: "recall", Priority: declared.Important},
		{Event: declared.SessionEnd, Context: "bye", Priority: declared.Suggestion},
		{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "careful", Priority: declared.Required},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}, Context: "committed", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "get_*", ToolServer: "weather"}, Context: "weather", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "a.b"}, Context: "dots", Priority: declared.Suggestion},
		{Event: declared.PostRequest, Context: "after", Priority: declared.Suggestion},
	}
	cmd := "hookflow hooks emit --agent X --server http://localhost:8080/mcp"
	tests := []struct {
		a       agent.Agent
		want    string
		skipped []int
	}{
		{agent.Claude, `{"hooks":{` +
			`"PostToolUse":[{"matcher":"^(?:(?:mcp__.+__)?Bash|mcp__weather__get_.*|(?:mcp__.+__)?a\\.b)$","hooks":[{"type":"command","command":"CMD","timeout":35}]}],` +
			`"PreToolUse":[{"matcher":"^(?:(?:mcp__.+__)?Bash)$","hooks":[{"type":"command","command":"CMD","timeout":35}]}],` +
			`"SessionStart":[{"hooks":[{"type":"command","command":"CMD","timeout":35}]}],` +
			`"Stop":[{"hooks":[{"type":"command","command":"CMD","timeout":35}]}]}}`, []int{1}},
		{agent.Gemini, `{"hooks":{` +
			`"AfterAgent":[{"hooks":[{"name":"hookflow-memory","type":"command","command":"CMD","timeout":35000}]}],` +
			`"AfterTool":[{"matcher":"^(?:(?:mcp__.+__)?Bash|run_shell_command|mcp__weather__get_.*|(?:mcp__.+__)?a\\.b)$","hooks":[{"name":"hookflow-memory","type":"command","command":"CMD","timeout":35000}]}],` +
			`"SessionStart":[{"hooks":[{"name":"hookflow-memory","type":"command","command":"CMD","timeout":35000}]}]}}`, []int{1, 2}},
	}
	for _, tt := range tests {
		s, skipped := tt.a.Settings(decls, cmd, "hookflow-memory", 35*time.Second)
		b, _ := json.Marshal(s)
		if got := strings.ReplaceAll(string(b), cmd, "CMD"); got != tt.want {
			t.Errorf("%s settings:\n got %s\nwant %s", tt.a, got, tt.want)
		}
		var idx []int
		for _, sk := range skipped {
			idx = append(idx, sk.Index)
		}
		if !slices.Equal(idx, tt.skipped) {
			t.Errorf("%s skipped %v, want %v", tt.a, skipped, tt.skipped)
		}
	}
	// A tool declaration without a name or server runs the command for
	// every tool.
	s, _ := agent.Codex.Settings([]declared.Declaration{
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "a", Priority: declared.Suggestion},
		{Event: declared.PostToolUse, Matcher: &declared.Matcher{InputContains: "rm -rf"}, Context: "b", Priority: declared.Suggestion},
	}, cmd, "", time.Minute)
	if m := s.Hooks["PostToolUse"][0].Matcher; m != "" {
		t.Errorf("matcher %q, want none", m)
	}
}

// TestToolMatcherAgrees: for every agent, the exported matcher selects at
// least every tool name a declaration matches once emit has read the
// agent's hook input (aliases included).
func TestToolMatcherAgrees(t *testing.T) {
	ms := []declared.Matcher{{ToolName: "Bash"}, {ToolName: "get_*", ToolServer: "weather"}, {ToolServer: "annal"}, {ToolName: "mcp__annal__*"},
		{ToolName: "Edit"}, {ToolName: "Web*"}, {ToolName: "run_shell_command"}, {ToolName: "apply_patch"}, {ToolName: "*_file"}, {ToolName: "Grep"}}
	names := []string{"Bash", "BashX", "mcp__x__Bash", "get_weather", "mcp__weather__get_weather", "mcp__maps__get_weather", "mcp__annal__store", "Edit",
		"run_shell_command", "apply_patch", "write_file", "replace", "read_file", "Read", "grep_search", "search_file_content", "Grep",
		"WebFetch", "web_fetch", "google_web_search", "WebSearch", "glob", "Glob", "Write"}
	for _, a := range []agent.Agent{agent.Claude, agent.Codex, agent.Gemini} {
		hook, _ := a.HookEvent(declared.PostToolUse)
		for _, m := range ms {
			s, _ := a.Settings([]declared.Declaration{{Event: declared.PostToolUse, Matcher: &m, Context: "x", Priority: declared.Suggestion}}, "c", "", time.Second)
			re := regexpOf(t, s.Hooks[hook][0].Matcher)
			for _, n := range names {
				f, err := a.Firing(&agent.Input{HookEventName: hook, ToolName: n})
				if err != nil {
					t.Fatal(err)
				}
				if m.Match(f.Tool) && !re.MatchString(n) {
					t.Errorf("%s: matcher %s (from %+v) misses %q, which the declaration matches", a, re, m, n)
				}
			}
		}
	}
}

func regexpOf(t *testing.T, s string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(s)
	if err != nil {
		t.Fatalf("matcher %q: %v", s, err)
	}
	return re
}
