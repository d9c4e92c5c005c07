package declared_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/declared"
)

func TestEventNames(t *testing.T) {
	for _, e := range declared.Events() {
		got, err := declared.ParseEvent(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEvent(%q) = %v, %v", e, got, err)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back declared.Event
		if err := json.Unmarshal(b, &back); err != nil || back != e {
			t.Errorf("JSON round trip of %v: %s → %v, %v", e, b, back, err)
		}
	}
	for _, tt := range []struct{ in, err string }{
		{"post_tool_us", `unknown event "post_tool_us" (did you mean "post_tool_use"?)`},
		{"PostToolUse", `unknown event "PostToolUse" (did you mean "post_tool_use"?)`},
		{"on_commit", `unknown event "on_commit" (events: session_start, session_end, pre_tool_use, post_tool_use, pre_request, post_request)`},
		{"", `unknown event ""`},
	} {
		if _, err := declared.ParseEvent(tt.in); err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("ParseEvent(%q) = %v, want %q", tt.in, err, tt.err)
		}
	}
	if _, err := json.Marshal(declared.Event(0)); err == nil {
		t.Error("the zero Event marshals")
	}
}

func TestPriorityNames(t *testing.T) {
	for _, p := range []declared.Priority{declared.Suggestion, declared.Important, declared.Required} {
		got, err := declared.ParsePriority(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePriority(%q) = %v, %v", p, got, err)
		}
	}
	if !(declared.Suggestion < declared.Important && declared.Important < declared.Required) {
		t.Error("priorities are not ordered weakest first")
	}
	if _, err := declared.ParsePriority("requird"); err == nil || !strings.Contains(err.Error(), `did you mean "required"?`) {
		t.Errorf("ParsePriority(requird) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	ok := declared.Declaration{Event: declared.SessionStart, Context: "hi", Priority: declared.Suggestion}
	tests := []struct {
		name string
		edit func(d *declared.Declaration)
		err  string
	}{
		{"valid static", func(*declared.Declaration) {}, ""},
		{"valid tool", func(d *declared.Declaration) {
			d.Context, d.ContextTool, d.ContextToolArgs = "", "recall", json.RawMessage(`{"q":"{project_name}"}`)
		}, ""},
		{"valid matcher", func(d *declared.Declaration) {
			d.Event, d.Matcher = declared.PostToolUse, &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}
		}, ""},
		{"empty matcher on a session event", func(d *declared.Declaration) { d.Matcher = &declared.Matcher{} }, ""},
		{"no event", func(d *declared.Declaration) { d.Event = 0 }, "event: missing or invalid"},
		{"no priority", func(d *declared.Declaration) { d.Priority = 0 }, "priority: missing or invalid"},
		{"both", func(d *declared.Declaration) { d.ContextTool = "recall" }, "context and context_tool are mutually exclusive"},
		{"neither", func(d *declared.Declaration) { d.Context = "" }, "context or context_tool is required"},
		{"args without tool", func(d *declared.Declaration) { d.ContextToolArgs = json.RawMessage(`{}`) }, "context_tool_args: requires context_tool"},
		{"args not an object", func(d *declared.Declaration) {
			d.Context, d.ContextTool, d.ContextToolArgs = "", "recall", json.RawMessage(`[1]`)
		}, "context_tool_args: want a JSON object"},
		{"args not JSON", func(d *declared.Declaration) {
			d.Context, d.ContextTool, d.ContextToolArgs = "", "recall", json.RawMessage(`{nope`)
		}, "context_tool_args: want a JSON object: invalid character"},
		{"matcher on a session event", func(d *declared.Declaration) { d.Matcher = &declared.Matcher{ToolName: "x"} },
			"matcher: applies to pre_tool_use and post_tool_use only, not session_start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ok
			tt.edit(&d)
			err := d.Validate()
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Validate = %v", err)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
				t.Errorf("Validate = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"Bash", "Bash", true},
		{"Bash", "bash", false},
		{"Bash", "BashX", false},
		{"*", "", true},
		{"*", "anything/at all", true},
		{"mcp__annal__*", "mcp__annal__store", true},
		{"mcp__annal__*", "mcp__other__store", false},
		{"*_memory", "search_memory", true},
		{"*_memory", "search_memory_x", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"a*b", "abab", true},
		{"?ash", "Bash", true},
		{"?ash", "ash", false},
		{"caf?", "café", true},
		{"*é", "naïvé", true},
		{"", "", true},
		{"", "x", false},
		{"**", "x", true},
	}
	for _, tt := range tests {
		if got := declared.Glob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { declared.Glob("mcp__*__st?re", "mcp__annal__store") }); n != 0 {
		t.Errorf("Glob allocates %v times", n)
	}
}

func TestMatch(t *testing.T) {
	bash := &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command": "git commit -m x"}`)}
	mcpCall := &declared.ToolCall{Name: "mcp__weather__get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}
	hosted := &declared.ToolCall{Server: "weather", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}
	tests := []struct {
		name string
		m    declared.Matcher
		call *declared.ToolCall
		want bool
	}{
		{"empty", declared.Matcher{}, bash, true},
		{"tool name", declared.Matcher{ToolName: "Bash"}, bash, true},
		{"other tool name", declared.Matcher{ToolName: "Edit"}, bash, false},
		{"contains (compacted input)", declared.Matcher{InputContains: `"command":"git commit`}, bash, true},
		{"contains as sent", declared.Matcher{InputContains: "git commit"}, bash, true},
		{"does not contain", declared.Matcher{InputContains: "git push"}, bash, false},
		{"name AND contains", declared.Matcher{ToolName: "Bash", InputContains: "git commit"}, bash, true},
		{"name AND not contains", declared.Matcher{ToolName: "Bash", InputContains: "git push"}, bash, false},
		{"not name AND contains", declared.Matcher{ToolName: "Edit", InputContains: "git commit"}, bash, false},
		{"server of an agent tool name", declared.Matcher{ToolServer: "weather"}, mcpCall, true},
		{"other server of an agent tool name", declared.Matcher{ToolServer: "annal"}, mcpCall, false},
		{"built-in tool has no server", declared.Matcher{ToolServer: "weather"}, bash, false},
		{"bare name of an agent tool name", declared.Matcher{ToolName: "get_weather"}, mcpCall, true},
		{"full agent tool name", declared.Matcher{ToolName: "mcp__weather__*"}, mcpCall, true},
		{"bare name AND server", declared.Matcher{ToolName: "get_*", ToolServer: "weather"}, mcpCall, true},
		{"bare name AND other server", declared.Matcher{ToolName: "get_*", ToolServer: "annal"}, mcpCall, false},
		{"host's server", declared.Matcher{ToolName: "get_weather", ToolServer: "weather"}, hosted, true},
		{"host's other server", declared.Matcher{ToolName: "get_weather", ToolServer: "annal"}, hosted, false},
		{"all three", declared.Matcher{ToolName: "get_weather", ToolServer: "weather", InputContains: "Paris"}, hosted, true},
		{"all three, input differs", declared.Matcher{ToolName: "get_weather", ToolServer: "weather", InputContains: "Rome"}, hosted, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Match(tt.call); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}

	d := declared.Declaration{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}}
	if !d.Matches(declared.PostToolUse, bash) || d.Matches(declared.PreToolUse, bash) || d.Matches(declared.PostToolUse, nil) {
		t.Error("Declaration.Matches ignores the event or fires a matcher without a call")
	}
	s := declared.Declaration{Event: declared.SessionStart}
	if !s.Matches(declared.SessionStart, nil) {
		t.Error("a declaration without matcher does not fire")
	}
}

func TestSplitAgentName(t *testing.T) {
	for _, tt := range []struct{ name, server, tool string }{
		{"mcp__weather__get_weather", "weather", "get_weather"},
		{"mcp__a__b__c", "a", "b__c"},
		{"Bash", "", ""},
		{"mcp____x", "", ""},
		{"mcp__x__", "", ""},
	} {
		s, tl, ok := declared.SplitAgentName(tt.name)
		if s != tt.server || tl != tt.tool || ok != (tt.server != "") {
			t.Errorf("SplitAgentName(%q) = %q, %q, %v", tt.name, s, tl, ok)
		}
	}
}

func TestExpand(t *testing.T) {
	call := &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
	all := declared.Vars{ProjectName: "shop", SessionID: "s-1", Tool: call}
	tests := []struct {
		in   string
		v    declared.Vars
		want string
	}{
		{"plain", all, "plain"},
		{"{project_name}/{session_id}", all, "shop/s-1"},
		{"ran {tool_name} with {tool_input}", all, `ran Bash with {"command":"ls"}`},
		{"before the call: {tool_output}", all, "before the call: {tool_output}"},
		{"unknown {branch} stays", all, "unknown {branch} stays"},
		{"{{project_name}}", all, "{shop}"},
		{"open {project_name", all, "open {project_name"},
		{"} {project_name} {", all, "} shop {"},
		{"no tool: {tool_name}", declared.Vars{ProjectName: "shop"}, "no tool: {tool_name}"},
		{"no project: {project_name}", declared.Vars{}, "no project: {project_name}"},
		{"not again: {project_name}", declared.Vars{ProjectName: "{session_id}", SessionID: "s"}, "not again: {session_id}"},
	}
	for _, tt := range tests {
		if got := declared.Expand(tt.in, tt.v); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	call.Output = json.RawMessage(`{"stdout":"a"}`)
	if got := declared.Expand("{tool_output}", all); got != `{"stdout":"a"}` {
		t.Errorf("Expand({tool_output}) = %q", got)
	}

	args, err := declared.ExpandArgs(json.RawMessage(`{"q":"{project_name} {x}","n":12345678901234567890,"deep":[{"s":"{tool_name}"}]}`), all)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(args), `{"deep":[{"s":"Bash"}],"n":12345678901234567890,"q":"shop {x}"}`; got != want {
		t.Errorf("ExpandArgs = %s, want %s", got, want)
	}
}

func TestCapabilities(t *testing.T) {
	caps := declared.DeclareSupport(nil, declared.SessionStart, declared.PostToolUse)
	if caps.RootsV2 == nil {
		t.Error("DeclareSupport(nil) dropped the SDK's default roots capability")
	}
	// Through JSON, as a server sees them.
	var wire mcp.ClientCapabilities
	b, _ := json.Marshal(caps)
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*mcp.ClientCapabilities{caps, &wire} {
		got, ok := declared.SupportedEvents(c)
		if !ok || len(got) != 2 || got[0] != declared.SessionStart || got[1] != declared.PostToolUse {
			t.Errorf("SupportedEvents = %v, %v", got, ok)
		}
	}
	tests := []struct {
		name  string
		hooks any
		want  []declared.Event
		ok    bool
	}{
		{"absent", nil, nil, false},
		{"no list: no event", map[string]any{}, nil, true},
		{"null list: no event", map[string]any{"supported_events": nil}, nil, true},
		{"unknown names left out", map[string]any{"supported_events": []any{"session_start", "on_commit"}}, []declared.Event{declared.SessionStart}, true},
		{"empty list", map[string]any{"supported_events": []any{}}, nil, true},
		{"not an object: no event", "yes", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &mcp.ClientCapabilities{Experimental: map[string]any{}}
			if tt.hooks != nil {
				c.Experimental["hooks"] = tt.hooks
			}
			got, ok := declared.SupportedEvents(c)
			if ok != tt.ok || len(got) != len(tt.want) {
				t.Fatalf("SupportedEvents = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("SupportedEvents = %v, want %v", got, tt.want)
				}
			}
		})
	}

	sc := &mcp.ServerCapabilities{Experimental: map[string]any{"hooks": map[string]any{"declarations": []any{
		map[string]any{"event": "session_start", "context": "hi", "priority": "suggestion"},
		map[string]any{"event": "on_commit", "context": "hi", "priority": "suggestion"},
		map[string]any{"event": "session_end", "context": "bye"},
	}}}}
	decls, errs, ok := declared.ServerDeclarations(sc)
	if !ok || len(decls) != 3 || errs[0] != nil || decls[0].Context != "hi" {
		t.Fatalf("ServerDeclarations = %+v, %v, %v", decls, errs, ok)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), `declaration 1: unknown event "on_commit"`) {
		t.Errorf("errs[1] = %v", errs[1])
	}
	if errs[2] == nil || !strings.Contains(errs[2].Error(), "declaration 2: priority: missing") {
		t.Errorf("errs[2] = %v", errs[2])
	}
	if _, _, ok := declared.ServerDeclarations(&mcp.ServerCapabilities{}); ok {
		t.Error("ServerDeclarations found hooks in empty capabilities")
	}
}
