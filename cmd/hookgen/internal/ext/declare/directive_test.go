package declare_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/declare"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/exttest"
	"github.com/hookflow/hookflow/plugins/declared"
)

var pos = exttest.Pos

type decodeTest struct {
	line      string
	want      directive.Value
	canonical string
}

type errorTest struct {
	name string
	line string
	want []string
}

func TestDecodeDeclare(t *testing.T) {
	r := exttest.Registry(t, declare.New())
	for _, tt := range []decodeTest{
		{
			`//mcp:declare event=session_end context="Store what you learned."`,
			declare.Directive{Event: declared.SessionEnd, Context: "Store what you learned.", Priority: declared.Suggestion},
			`//mcp:declare event=session_end context="Store what you learned."`,
		},
		{
			`//mcp:declare priority=required event=post_tool_use toolname=Bash inputcontains="git commit" toolserver=shell context=committed`,
			declare.Directive{Event: declared.PostToolUse, ToolName: "Bash", InputContains: "git commit", ToolServer: "shell", Context: "committed", Priority: declared.Required},
			`//mcp:declare event=post_tool_use toolname=Bash inputcontains="git commit" toolserver=shell context=committed priority=required`,
		},
		{
			"//mcp:declare event=session_start contexttool=recall contextargs=`{\"query\": \"{project_name}\"}` priority=important",
			declare.Directive{Event: declared.SessionStart, ContextTool: "recall", ContextArgs: `{"query": "{project_name}"}`, Priority: declared.Important},
			`//mcp:declare event=session_start contexttool=recall contextargs="{\"query\": \"{project_name}\"}" priority=important`,
		},
	} {
		dec, diags := r.ParseComment(tt.line, pos)
		if len(diags) > 0 || dec == nil {
			t.Errorf("ParseComment(%q): unexpected %q", tt.line, exttest.Render(diags))
			continue
		}
		if !reflect.DeepEqual(dec.Value, tt.want) {
			t.Errorf("ParseComment(%q) = %#v, want %#v", tt.line, dec.Value, tt.want)
		}
		if got := dec.Value.Canonical(); got != tt.canonical {
			t.Errorf("Canonical(%q) =\n\t%s\nwant\n\t%s", tt.line, got, tt.canonical)
		}
		again, diags := r.ParseComment(tt.canonical, pos)
		if len(diags) > 0 || again == nil || !reflect.DeepEqual(again.Value, tt.want) {
			t.Errorf("ParseComment(%q) = %v, %q; want %#v", tt.canonical, again, exttest.Render(diags), tt.want)
		}
	}
}

func TestDeclareErrors(t *testing.T) {
	r := exttest.Registry(t, declare.New())
	for _, tt := range []errorTest{
		{"no event", `//mcp:declare context=x`,
			[]string{`file.go:7:7: missing required key "event" for //mcp:declare`}},
		{"event near miss", `//mcp:declare event=post_tool_us context=x`,
			[]string{`file.go:7:21: invalid value "post_tool_us" for key "event": want one of session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request (did you mean "post_tool_use"?)`}},
		{"agent's event name", `//mcp:declare event=PostToolUse context=x`,
			[]string{`file.go:7:21: invalid value "PostToolUse" for key "event": want one of session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request (did you mean "post_tool_use"?)`}},
		{"priority near miss", `//mcp:declare event=session_end context=x priority=requierd`,
			[]string{`file.go:7:52: invalid value "requierd" for key "priority": want one of suggestion, important, required (did you mean "required"?)`}},
		{"context and tool", `//mcp:declare event=session_end context=x contexttool=recall`,
			[]string{`file.go:7:43: key "contexttool" cannot be used with "context"`}},
		{"args not an object", "//mcp:declare event=session_end contexttool=recall contextargs=`[1]`",
			[]string{"file.go:7:64: invalid value \"[1]\" for key \"contextargs\": want a JSON object"}},
		{"bad tool name", `//mcp:declare event=session_end contexttool="re call"`,
			[]string{`file.go:7:45: invalid value "re call" for key "contexttool": want only A-Z a-z 0-9 _ - . /`}},
		{"key typo", `//mcp:declare event=post_tool_use tool_name=Bash context=x`,
			[]string{`file.go:7:35: unknown key "tool_name" for //mcp:declare (did you mean "toolname"?)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dec, diags := r.ParseComment(tt.line, pos)
			if dec != nil {
				t.Errorf("ParseComment(%q) decoded %#v, want errors", tt.line, dec.Value)
			}
			if got := exttest.Render(diags); !slices.Equal(got, tt.want) {
				t.Errorf("ParseComment(%q):\ngot:\n\t%s\nwant:\n\t%s", tt.line, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}
