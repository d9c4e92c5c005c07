package directive_test

import (
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

type lookalikeTest struct {
	line string
	want string // "" for no warning
}

// lookalikeTests are near misses with their warnings, and lines that must
// stay quiet; they also seed FuzzParse.
func lookalikeTests() []lookalikeTest {
	return []lookalikeTest{
		// Near misses: Go does not treat these as directives.
		{`// hook:beforeExecute`, `file.go:7:3: warning: not a directive: space after "//" (did you mean "//hook:beforeExecute"?)`},
		{"//\tmcp:tool name=x", `file.go:7:3: warning: not a directive: space after "//" (did you mean "//mcp:tool"?)`},
		{`//Hook:beforeExecute`, `file.go:7:3: warning: not a directive: namespace "Hook" must be lowercase (did you mean "//hook:beforeExecute"?)`},
		{`//HOOK:BEFOREEXECUTE`, `file.go:7:3: warning: not a directive: namespace "HOOK" must be lowercase (did you mean "//hook:beforeExecute"?)`},
		{`//HOOK:`, `file.go:7:3: warning: not a directive: namespace "HOOK" must be lowercase`},
		{`//MCP:tool name=x`, `file.go:7:3: warning: not a directive: namespace "MCP" must be lowercase (did you mean "//mcp:tool"?)`},
		{`//hook: beforeExecute`, `file.go:7:8: warning: not a directive: space after ":" (did you mean "//hook:beforeExecute"?)`},
		{`//mcp :tool name=x`, `file.go:7:6: warning: not a directive: space before ":" (did you mean "//mcp:tool"?)`},
		{`//hook:BeforeExecute`, `file.go:7:8: warning: not a directive: name "BeforeExecute" must start with a lowercase letter or digit (did you mean "//hook:beforeExecute"?)`},
		{`//mcp:Tool name=x`, `file.go:7:7: warning: not a directive: name "Tool" must start with a lowercase letter or digit (did you mean "//mcp:tool"?)`},
		{`//mcp:ResourceTemplate uri=x`, `file.go:7:7: warning: not a directive: name "ResourceTemplate" must start with a lowercase letter or digit (did you mean "//mcp:resource-template"?)`},
		{`//hook:Foo`, `file.go:7:8: warning: not a directive: name "Foo" must start with a lowercase letter or digit (did you mean "//hook:foo"?)`},
		{`//hook:_x`, `file.go:7:8: warning: not a directive: name "_x" must start with a lowercase letter or digit`},
		{`//hook:`, `file.go:7:7: warning: not a directive: missing name after "hook:"`},
		{`// hook:foo`, `file.go:7:3: warning: not a directive: space after "//" (did you mean "//hook:foo"?)`},
		{`// Hook: beforeExecute`, `file.go:7:3: warning: not a directive: space after "//" (did you mean "//hook:beforeExecute"?)`},
		{`// mcp: tool name=x`, `file.go:7:3: warning: not a directive: space after "//" (did you mean "//mcp:tool"?)`},

		// Prose and other namespaces stay quiet.
		{`// Hook: called when the server starts.`, ""},
		{`// Hook: before execute runs first`, ""},
		{`// MCP: the Model Context Protocol.`, ""},
		{`// hook: see the package doc`, ""},
		{`//hook: see below`, ""},
		{`// Hooks: none`, ""},
		{`//go:generate go tool hookgen`, ""},
		{`//nolint:errcheck`, ""},
		{`//export Foo`, ""},
		{`// a comment about hooks`, ""},
		{`/* hook:beforeExecute */`, ""},
		{``, ""},

		// Real directives are Parse's, even invalid ones.
		{`//hook:beforeExecute`, ""},
		{`//hook:beforeexecute`, ""},
		{`//mcp:tol name=x`, ""},
		{`//mcp:1 name=x`, ""},
	}
}

func TestLookalike(t *testing.T) {
	r := registry()
	for _, tt := range lookalikeTests() {
		got := ""
		if d := r.Lookalike(tt.line, pos); d != nil {
			got = d.String()
			if d.Severity != directive.Warning {
				t.Errorf("Lookalike(%q).Severity = %v, want warning", tt.line, d.Severity)
			}
		}
		if got != tt.want {
			t.Errorf("Lookalike(%q) =\n\t%q\nwant\n\t%q", tt.line, got, tt.want)
		}
		// ParseComment reports the same warning and nothing else.
		dec, diags := r.ParseComment(tt.line, pos)
		if tt.want != "" && (dec != nil || len(diags) != 1 || diags[0].String() != tt.want) {
			t.Errorf("ParseComment(%q) = %v, %q; want the warning", tt.line, dec, render(diags))
		}
	}
}
