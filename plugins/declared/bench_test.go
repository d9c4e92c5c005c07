package declared_test

import (
	"encoding/json"
	"testing"

	"github.com/hookflow/hookflow/plugins/declared"
)

// BenchmarkMatch: one tool-event declaration tested against a call, as a
// host does for every declaration at every tool call.
func BenchmarkMatch(b *testing.B) {
	call := &declared.ToolCall{Name: "mcp__shell__Bash", Input: json.RawMessage(`{"command":"git commit -am \"cart: round prices\"","description":"Commit"}`)}
	cases := []struct {
		name string
		m    declared.Matcher
	}{
		{"name", declared.Matcher{ToolName: "Bash"}},
		{"glob+contains+server", declared.Matcher{ToolName: "B*h", InputContains: "git commit", ToolServer: "shell"}},
		{"contains-miss", declared.Matcher{InputContains: "git push"}},
	}
	for _, c := range cases {
		d := declared.Declaration{Event: declared.PostToolUse, Matcher: &c.m, Context: "x", Priority: declared.Suggestion}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.Matches(declared.PostToolUse, call)
			}
		})
	}
}
