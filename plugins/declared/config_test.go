package declared_test

import (
	"encoding/json"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/declared"
)

func TestConfigValidate(t *testing.T) {
	ok := declared.Declaration{Event: declared.SessionStart, Context: "Read the README.", Priority: declared.Suggestion}
	with := func(f func(d *declared.Declaration)) declared.Declaration {
		d := ok
		f(&d)
		return d
	}
	tests := []struct {
		name string
		cfg  declared.Config
		want []plugintest.FieldErr
	}{
		{"zero", declared.Config{}, nil},
		{"valid", declared.Config{Name: "hooks", Unnegotiated: true, Declarations: []declared.Declaration{
			ok,
			{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "deploy_*"}, ContextTool: "policy",
				ContextToolArgs: json.RawMessage(`{"tool": "{tool_name}"}`), Priority: declared.Required},
		}}, nil},
		{"name with a slash", declared.Config{Name: "a/b"},
			[]plugintest.FieldErr{{"name", `"a/b" must not hold '/' or white space: the name is part of the plugin's hook IDs`}}},
		{"no event", declared.Config{Declarations: []declared.Declaration{ok, with(func(d *declared.Declaration) { d.Event = 0 })}},
			[]plugintest.FieldErr{{"declarations[1].event", "missing or invalid (events: session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request)"}}},
		{"no priority", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) { d.Priority = 0 })}},
			[]plugintest.FieldErr{{"declarations[0].priority", "missing or invalid (priorities: suggestion, important, required)"}}},
		{"no context", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) { d.Context = "" })}},
			[]plugintest.FieldErr{{"declarations[0]", "context or context_tool is required"}}},
		{"both contexts", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) { d.ContextTool = "policy" })}},
			[]plugintest.FieldErr{{"declarations[0]", "context and context_tool are mutually exclusive: set one"}}},
		{"args without a tool", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) { d.ContextToolArgs = json.RawMessage(`{}`) })}},
			[]plugintest.FieldErr{{"declarations[0].context_tool_args", "requires context_tool"}}},
		{"args not an object", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) {
			d.Context, d.ContextTool, d.ContextToolArgs = "", "policy", json.RawMessage(`[1]`)
		})}},
			[]plugintest.FieldErr{{"declarations[0].context_tool_args", "want a JSON object"}}},
		{"matcher on a session event", declared.Config{Declarations: []declared.Declaration{with(func(d *declared.Declaration) { d.Matcher = &declared.Matcher{ToolName: "x"} })}},
			[]plugintest.FieldErr{{"declarations[0].matcher", "applies to pre_tool_use and post_tool_use only, not session_start"}}},
		{"every declaration is checked", declared.Config{Name: "a b", Declarations: []declared.Declaration{
			with(func(d *declared.Declaration) { d.Event = 0 }), ok, with(func(d *declared.Declaration) { d.Priority = 9 }),
		}}, []plugintest.FieldErr{
			{"name", `"a b" must not hold '/' or white space: the name is part of the plugin's hook IDs`},
			{"declarations[0].event", "missing or invalid (events: session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request)"},
			{"declarations[2].priority", "missing or invalid (priorities: suggestion, important, required)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tt.cfg.Validate())
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestTextRoundTrip: the scalars a configuration file writes (event,
// priority) read back through encoding.TextUnmarshaler as they were
// written, and a near miss names the likely value.
func TestTextRoundTrip(t *testing.T) {
	for _, e := range declared.Events() {
		b, err := e.MarshalText()
		var back declared.Event
		if err != nil || back.UnmarshalText(b) != nil || back != e {
			t.Errorf("event %v: %q, %v → %v", e, b, err, back)
		}
	}
	for _, name := range declared.PriorityNames() {
		var p declared.Priority
		if err := p.UnmarshalText([]byte(name)); err != nil {
			t.Fatal(err)
		}
		if b, err := p.MarshalText(); err != nil || string(b) != name {
			t.Errorf("priority %q: %q, %v", name, b, err)
		}
	}
	var p declared.Priority
	if err := p.UnmarshalText([]byte("requried")); err == nil || err.Error() != `unknown priority "requried" (did you mean "required"?)` {
		t.Errorf("UnmarshalText(requried) = %v", err)
	}
}
