package declaredkinds_test

import (
	"testing"

	"github.com/hookflow/hookflow/internal/declaredkinds"
)

// Check names the first broken rule of a declaration's fields, by its wire
// name, in a fixed order.
func TestCheck(t *testing.T) {
	const ok, tool = declaredkinds.SessionStart, declaredkinds.PreToolUse
	const p = declaredkinds.Suggestion
	tests := []struct {
		name            string
		event           declaredkinds.Event
		priority        declaredkinds.Priority
		context, ctool  string
		args            string
		matcher         bool
		field, wantsMsg string
	}{
		{"valid", ok, p, "text", "", "", false, "", ""},
		{"valid tool", tool, p, "", "recall", `{"q":1}`, true, "", ""},
		{"no event", 0, p, "text", "", "", false, "event", "missing or invalid (events: session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request)"},
		{"no priority", ok, 0, "text", "", "", false, "priority", "missing or invalid (priorities: suggestion, important, required)"},
		{"both", ok, p, "text", "recall", "", false, "", "context and context_tool are mutually exclusive: set one"},
		{"neither", ok, p, "", "", "", false, "", "context or context_tool is required"},
		{"args without tool", ok, p, "text", "", `{}`, false, "context_tool_args", "requires context_tool"},
		{"matcher off a tool event", ok, p, "text", "", "", true, "matcher", "applies to pre_tool_use and post_tool_use only, not session_start"},
		{"args not an object", ok, p, "", "recall", `[1]`, false, "context_tool_args", "want a JSON object"},
		{"args not JSON", ok, p, "", "recall", `{`, false, "context_tool_args", "want a JSON object: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, msg := declaredkinds.Check(tt.event, tt.priority, tt.context, tt.ctool, []byte(tt.args), tt.matcher)
			if field != tt.field || msg != tt.wantsMsg {
				t.Errorf("Check = %q, %q; want %q, %q", field, msg, tt.field, tt.wantsMsg)
			}
		})
	}
}

// The wire names parse back to their values; a near miss is refused with
// a hint.
func TestParse(t *testing.T) {
	for _, e := range declaredkinds.Events() {
		if got, err := declaredkinds.ParseEvent(e.String()); got != e || err != nil {
			t.Errorf("ParseEvent(%s) = %v, %v", e, got, err)
		}
	}
	if _, err := declaredkinds.ParseEvent("post_tool_us"); err == nil || err.Error() != `unknown event "post_tool_us" (did you mean "post_tool_use"?)` {
		t.Errorf("near miss: %v", err)
	}
	if got, err := declaredkinds.ParsePriority("required"); got != declaredkinds.Required || err != nil {
		t.Errorf("ParsePriority(required) = %v, %v", got, err)
	}
}
