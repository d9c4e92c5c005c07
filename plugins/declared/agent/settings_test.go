package agent_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/declared/agent"
)

func TestMerge(t *testing.T) {
	ours := agent.Settings{Hooks: map[string][]agent.Group{
		"PostToolUse": {{Matcher: "^(?:Bash)$", Hooks: []agent.Handler{{Type: "command", Command: "hookflow hooks emit --server x", Timeout: 35}}}},
	}}
	existing := `{
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]},
      {"matcher": "^(?:Old)$", "hooks": [{"type": "command", "command": "hookflow hooks emit --server x"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}`
	got, err := agent.Merge("settings.json", []byte(existing), ours)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write"
          }
        ]
      },
      {
        "matcher": "^(?:Bash)$",
        "hooks": [
          {
            "type": "command",
            "command": "hookflow hooks emit --server x",
            "timeout": 35
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`
	if string(got) != want {
		t.Errorf("Merge:\n%s\nwant:\n%s", got, want)
	}
	again, err := agent.Merge("settings.json", got, ours)
	if err != nil || string(again) != want {
		t.Errorf("merging twice changes the file:\n%s", again)
	}
	fresh, err := agent.Merge("settings.json", nil, ours)
	if err != nil || !strings.Contains(string(fresh), `"matcher": "^(?:Bash)$"`) {
		t.Errorf("Merge into a new file = %s, %v", fresh, err)
	}

	for _, tt := range []struct{ in, err string }{
		{"{\n  \"hooks\": {,\n}", "settings.json:2:13: invalid character ',' looking for beginning of object key string"},
		{"[1]", "settings.json:1:1: want a JSON object"},
		{`{"hooks": []}`, `settings.json: "hooks" is not an object`},
	} {
		if _, err := agent.Merge("settings.json", []byte(tt.in), ours); err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("Merge(%q) = %v, want %q", tt.in, err, tt.err)
		}
	}
}

func TestQuoteSplit(t *testing.T) {
	tests := []struct {
		args  []string
		quote string
	}{
		{[]string{"hookflow", "hooks", "emit"}, "hookflow hooks emit"},
		{[]string{"--server", "http://localhost:8080/mcp?x=1&y=2"}, "--server 'http://localhost:8080/mcp?x=1&y=2'"},
		{[]string{"go run ./examples/declared"}, "'go run ./examples/declared'"},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{""}, "''"},
		{[]string{"$HOME", "a b", `"q"`}, `'$HOME' 'a b' '"q"'`},
	}
	for _, tt := range tests {
		if got := agent.Quote(tt.args...); got != tt.quote {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.quote)
		}
		back, err := agent.Split(tt.quote)
		if err != nil || strings.Join(back, "\x00") != strings.Join(tt.args, "\x00") {
			t.Errorf("Split(%s) = %q, %v; want %q", tt.quote, back, err, tt.args)
		}
	}
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`  go   run  ./x  `, []string{"go", "run", "./x"}},
		{`a\ b "c \"d\" \x" 'e\f'`, []string{"a b", `c "d" \x`, `e\f`}},
		{`x"y"'z'`, []string{"xyz"}},
		{`""`, []string{""}},
	} {
		got, err := agent.Split(tt.line)
		if err != nil || strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("Split(%s) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	for _, line := range []string{`a 'b`, `a "b`} {
		if _, err := agent.Split(line); err == nil || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("Split(%s) = %v", line, err)
		}
	}
}
