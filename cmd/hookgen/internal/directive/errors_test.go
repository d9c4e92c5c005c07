package directive_test

import (
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// pos is where the test comments start: column 1 of line 7 of file.go.
var pos = token.Position{Filename: "file.go", Offset: 100, Line: 7, Column: 1}

func render(ds []directive.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// TestErrors checks every error case of errorTests with its exact output.
func TestErrors(t *testing.T) {
	r := registry()
	for _, tt := range errorTests() {
		t.Run(tt.name, func(t *testing.T) {
			dec, diags := r.ParseComment(tt.line, pos)
			if dec != nil {
				t.Errorf("ParseComment(%q) decoded %#v, want errors", tt.line, dec.Value)
			}
			if got := render(diags); !slices.Equal(got, tt.want) {
				t.Errorf("ParseComment(%q):\ngot:\n\t%s\nwant:\n\t%s", tt.line, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
			for _, d := range diags {
				if d.Severity != directive.Error {
					t.Errorf("%s: severity %v, want error", d, d.Severity)
				}
			}
		})
	}
}

type errorTest struct {
	name string
	line string
	want []string
}

// errorTests are invalid directive lines with their exact diagnostics; they
// also seed FuzzParse.
func errorTests() []errorTest {
	return []errorTest{
		// Unknown directive names.
		{"unknown mcp directive with hint", `//mcp:tol name=x`,
			[]string{`file.go:7:7: unknown directive "mcp:tol" (did you mean "mcp:tool"?)`}},
		{"unknown mcp directive with hint 2", `//mcp:resource-templat uri=x:{a}`,
			[]string{`file.go:7:7: unknown directive "mcp:resource-templat" (did you mean "mcp:resource-template"?)`}},
		{"near-miss stage in mcp namespace", `//mcp:finaly`,
			[]string{`file.go:7:7: unknown directive "mcp:finaly" (did you mean "hook:finally"?)`}},
		{"unknown mcp directive without hint", `//mcp:widget`,
			[]string{`file.go:7:7: unknown directive "mcp:widget" (mcp directives: tool, resource, resource-template, prompt, arg, plugin, guidance, declare)`}},
		{"stage in mcp namespace", `//mcp:beforeExecute`,
			[]string{`file.go:7:7: unknown directive "mcp:beforeExecute" (did you mean "hook:beforeExecute"?)`}},
		{"unknown stage with hint", `//hook:beforeExecte`,
			[]string{`file.go:7:8: unknown stage "beforeExecte" (did you mean "beforeExecute"?)`}},
		{"stage in wrong case", `//hook:beforeexecute`,
			[]string{`file.go:7:8: unknown stage "beforeexecute" (did you mean "beforeExecute"?)`}},
		{"unknown stage without hint", `//hook:tool`,
			[]string{`file.go:7:8: unknown stage "tool" (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)`}},
		{"unknown stage keeps checking keys", `//hook:afterExecte priorty=1`,
			[]string{
				`file.go:7:8: unknown stage "afterExecte" (did you mean "afterExecute"?)`,
				`file.go:7:20: unknown key "priorty" for //hook:afterExecte (did you mean "priority"?)`,
			}},

		// Unknown keys.
		{"unknown key with hint", `//hook:beforeExecute priorty=1`,
			[]string{`file.go:7:22: unknown key "priorty" for //hook:beforeExecute (did you mean "priority"?)`}},
		{"unknown flag with hint", `//mcp:tool name=x readOnly`,
			[]string{`file.go:7:19: unknown key "readOnly" for //mcp:tool (did you mean "readonly"?)`}},
		{"unknown key without hint", `//mcp:plugin name=audit color=red`,
			[]string{`file.go:7:25: unknown key "color" for //mcp:plugin (keys: name)`}},
		{"unknown key on tool", `//mcp:tool name=x timeout=5s`,
			[]string{`file.go:7:19: unknown key "timeout" for //mcp:tool (keys: name, title, description, readonly, destructive, idempotent, openworld, scopes, inputschema, outputschema)`}},

		// Missing required keys: reported at the directive name.
		{"tool without name", `//mcp:tool readonly`,
			[]string{`file.go:7:7: missing required key "name" for //mcp:tool`}},
		{"resource without uri", `//mcp:resource name=r`,
			[]string{`file.go:7:7: missing required key "uri" for //mcp:resource`}},
		{"template without uri", `//mcp:resource-template`,
			[]string{`file.go:7:7: missing required key "uri" for //mcp:resource-template`}},
		{"prompt without name", `//mcp:prompt title=T`,
			[]string{`file.go:7:7: missing required key "name" for //mcp:prompt`}},
		{"plugin without name", `//mcp:plugin`,
			[]string{`file.go:7:7: missing required key "name" for //mcp:plugin`}},

		// Duplicate keys: reported at the second one.
		{"duplicate key", `//mcp:tool name=a name=b`,
			[]string{`file.go:7:19: duplicate key "name" for //mcp:tool`}},
		{"duplicate flag", `//mcp:tool name=a readonly readonly`,
			[]string{`file.go:7:28: duplicate key "readonly" for //mcp:tool`}},
		{"duplicate hook key", `//hook:finally priority=1 priority=2`,
			[]string{`file.go:7:27: duplicate key "priority" for //hook:finally`}},

		// Keys without values and flags with values.
		{"key without value", `//mcp:tool name`,
			[]string{`file.go:7:12: missing value for key "name"`}},
		{"key with empty value", `//mcp:tool name= readonly`,
			[]string{`file.go:7:12: missing value for key "name"`}},
		{"key with empty value at end", `//hook:onError priority=`,
			[]string{`file.go:7:16: missing value for key "priority"`}},
		{"flag given a value", `//mcp:tool name=x readonly=true`,
			[]string{`file.go:7:28: flag "readonly" takes no value`}},
		{"flag given an empty value", `//mcp:tool name=x openworld=`,
			[]string{`file.go:7:28: flag "openworld" takes no value`}},
		{"flag given a quoted value", `//mcp:tool name=x idempotent=""`,
			[]string{`file.go:7:30: flag "idempotent" takes no value`}},

		// Bad values of each kind.
		{"not an integer", `//hook:beforeExecute priority=high`,
			[]string{`file.go:7:31: invalid value "high" for key "priority": unknown priority position "high" (positions: first, cache-store, audit, auth, ratelimit, intercept-request, default, intercept-response, cache, last)`}},
		{"near miss of a position", `//hook:beforeExecute priority=autth+10`,
			[]string{`file.go:7:31: invalid value "autth+10" for key "priority": unknown position "autth" (did you mean "auth"?)`}},
		{"float is not an integer", `//hook:beforeExecute priority=1.5`,
			[]string{`file.go:7:31: invalid value "1.5" for key "priority": priority "1.5" is not a whole number in [-2147483648, 2147483647] or a position (first, cache-store, audit, auth, ratelimit, intercept-request, default, intercept-response, cache, last)`}},
		{"integer out of int32 range", `//hook:beforeExecute priority=2147483648`,
			[]string{`file.go:7:31: invalid value "2147483648" for key "priority": priority 2147483648 is out of range [-2147483648, 2147483647]`}},
		{"negative integer out of range", `//hook:beforeExecute priority=-0x80000001`,
			[]string{`file.go:7:31: invalid value "-0x80000001" for key "priority": priority -2147483649 is out of range [-2147483648, 2147483647]`}},
		{"quoted integer", `//hook:beforeExecute priority="5"`,
			[]string{`file.go:7:31: invalid value for key "priority": a priority must not be quoted`}},
		{"quoted word", `//mcp:plugin name="audit"`,
			[]string{`file.go:7:19: invalid value for key "name": a word must not be quoted`}},
		{"quoted flow", "//hook:beforeExecute flow=`tools:call-tool`",
			[]string{`file.go:7:27: invalid value for key "flow": a flow ID must not be quoted`}},
		{"quoted list", `//mcp:tool name=x scopes="read,write"`,
			[]string{`file.go:7:26: invalid value for key "scopes": a list must not be quoted`}},
		{"bad word", `//hook:beforeExecute name=log:all`,
			[]string{`file.go:7:27: invalid value "log:all" for key "name": want a word of A-Z a-z 0-9 _ . -`}},
		{"unknown flow with hint", `//hook:beforeExecute flow=tools:cal-tool`,
			[]string{`file.go:7:27: unknown flow "tools:cal-tool" (did you mean "tools:call-tool"?)`}},
		{"unknown flow without hint", `//hook:beforeExecute flow=everything`,
			[]string{`file.go:7:27: unknown flow "everything" (flows: tools:call-tool, tools:list-tools, resources:read-resource, resources:list-resources, resources:list-resource-templates, prompts:get-prompt, prompts:list-prompts, completion:complete, session:initialize, session:ping, resources:subscribe, resources:unsubscribe, logging:set-level, notifications:from-client, notifications:from-server, sampling:create-message, elicitation:create, roots:list-roots)`}},
		{"flow given as MCP method", `//hook:beforeExecute flow=resources/read`,
			[]string{`file.go:7:27: unknown flow "resources/read" (did you mean "resources:read-resource"?)`}},
		{"flow given as a sent MCP method", `//hook:beforeExecute flow=sampling/createMessage`,
			[]string{`file.go:7:27: unknown flow "sampling/createMessage" (did you mean "sampling:create-message"?)`}},
		{"flow given as a notification", `//hook:beforeExecute flow=notifications/initialized`,
			[]string{`file.go:7:27: unknown flow "notifications/initialized" (did you mean "notifications:from-client"?)`}},
		{"flow without namespace", `//hook:beforeExecute flow=get-prompt`,
			[]string{`file.go:7:27: unknown flow "get-prompt" (did you mean "prompts:get-prompt"?)`}},
		{"flow prefix", `//hook:beforeExecute flow=tools:call`,
			[]string{`file.go:7:27: unknown flow "tools:call" (did you mean "tools:call-tool"?)`}},
		{"ambiguous flow prefix", `//hook:beforeExecute flow=resources:list`,
			[]string{`file.go:7:27: unknown flow "resources:list" (flows: tools:call-tool, tools:list-tools, resources:read-resource, resources:list-resources, resources:list-resource-templates, prompts:get-prompt, prompts:list-prompts, completion:complete, session:initialize, session:ping, resources:subscribe, resources:unsubscribe, logging:set-level, notifications:from-client, notifications:from-server, sampling:create-message, elicitation:create, roots:list-roots)`}},
		{"empty list element", `//mcp:tool name=x scopes=read,,write`,
			[]string{`file.go:7:31: empty element in list for key "scopes"`}},
		{"leading comma", `//mcp:tool name=x scopes=,read`,
			[]string{`file.go:7:26: empty element in list for key "scopes"`}},
		{"trailing comma", `//mcp:tool name=x scopes=read,`,
			[]string{`file.go:7:30: empty element in list for key "scopes"`}},
		{"two empty elements", `//mcp:tool name=x scopes=a,,b,`,
			[]string{
				`file.go:7:28: empty element in list for key "scopes"`,
				`file.go:7:30: empty element in list for key "scopes"`,
			}},
		{"duplicate list element", `//mcp:tool name=x scopes=read,write,read`,
			[]string{`file.go:7:37: duplicate element "read" in list for key "scopes"`}},
		{"bad scope", `//mcp:tool name=x scopes=read,a\b`,
			[]string{`file.go:7:31: invalid element "a\\b" in list for key "scopes": want printable ASCII without spaces, '"' or '\'`}},
		{"schema that is not an identifier", `//mcp:tool name=t inputschema=a.b outputschema=9x`,
			[]string{
				`file.go:7:31: invalid value "a.b" for key "inputschema": want a Go identifier`,
				`file.go:7:48: invalid value "9x" for key "outputschema": want a Go identifier`,
			}},
		{"arg without name", `//mcp:arg optional=yes`,
			[]string{
				`file.go:7:7: missing required key "name" for //mcp:arg`,
				`file.go:7:20: flag "optional" takes no value`,
			}},
		{"prompt arg that is not a word", `//mcp:prompt name=p args=code,lang uage`,
			[]string{`file.go:7:36: unknown key "uage" for //mcp:prompt (did you mean "name"?)`}},
		{"prompt arg with a bad character", `//mcp:prompt name=p args=code,la*ng?`,
			[]string{`file.go:7:31: invalid element "la*ng?" in list for key "args": want a word of A-Z a-z 0-9 _ . -, optionally followed by ?`}},
		{"prompt arg that is only a question mark", `//mcp:prompt name=p args=?`,
			[]string{`file.go:7:26: invalid element "?" in list for key "args": want a word of A-Z a-z 0-9 _ . -, optionally followed by ?`}},
		{"prompt arg given twice, once optional", `//mcp:prompt name=p args=code,code?`,
			[]string{`file.go:7:31: duplicate element "code?" in list for key "args"`}},
		{"tool name with space", `//mcp:tool name="get weather"`,
			[]string{`file.go:7:17: invalid value "get weather" for key "name": want only A-Z a-z 0-9 _ - . /`}},
		{"tool name with colon", `//mcp:tool name=weather:get`,
			[]string{`file.go:7:17: invalid value "weather:get" for key "name": want only A-Z a-z 0-9 _ - . /`}},
		{"empty tool name", `//mcp:tool name=""`,
			[]string{`file.go:7:17: invalid value "" for key "name": must not be empty`}},
		{"long tool name", `//mcp:tool name=` + strings.Repeat("a", 65),
			[]string{`file.go:7:17: invalid value "` + strings.Repeat("a", 65) + `" for key "name": longer than 64 characters`}},
		{"empty prompt name", `//mcp:prompt name=""`,
			[]string{`file.go:7:19: invalid value "" for key "name": must not be empty`}},
		{"uri without scheme", `//mcp:resource uri=/etc/motd`,
			[]string{`file.go:7:20: invalid value "/etc/motd" for key "uri": missing scheme (want e.g. file:///path)`}},
		{"empty uri", `//mcp:resource uri=""`,
			[]string{`file.go:7:20: invalid value "" for key "uri": must not be empty`}},
		{"uri with bad scheme", `//mcp:resource uri=my_scheme:x`,
			[]string{`file.go:7:20: invalid value "my_scheme:x" for key "uri": missing scheme (want e.g. file:///path)`}},
		{"template without scheme", `//mcp:resource-template uri=/logs/{day}`,
			[]string{`file.go:7:29: invalid value "/logs/{day}" for key "uri": missing scheme (want e.g. file:///path)`}},
		{"uri with space", `//mcp:resource uri="file:///my file"`,
			[]string{`file.go:7:20: invalid value "file:///my file" for key "uri": contains a space or control character`}},
		{"template as resource", `//mcp:resource uri=test://x/{id}`,
			[]string{`file.go:7:20: invalid value "test://x/{id}" for key "uri": contains "{" or "}": a URI template belongs in //mcp:resource-template`}},
		{"template without variable", `//mcp:resource-template uri=test://x`,
			[]string{`file.go:7:29: invalid value "test://x" for key "uri": no {variable}: a fixed URI belongs in //mcp:resource`}},
		{"template unclosed", `//mcp:resource-template uri=test://x/{id`,
			[]string{`file.go:7:29: invalid value "test://x/{id" for key "uri": unclosed "{"`}},
		{"template nested", `//mcp:resource-template uri=test://{a{b}}`,
			[]string{`file.go:7:29: invalid value "test://{a{b}}" for key "uri": nested "{"`}},
		{"template stray close", `//mcp:resource-template uri=test://a}{b}`,
			[]string{`file.go:7:29: invalid value "test://a}{b}" for key "uri": "}" without "{"`}},
		{"template empty expression", `//mcp:resource-template uri=test://{}`,
			[]string{`file.go:7:29: invalid value "test://{}" for key "uri": empty "{}"`}},
		{"bad mime", `//mcp:resource uri=test://x mime=text`,
			[]string{`file.go:7:34: invalid value "text" for key "mime": not a media type (want e.g. text/plain)`}},
		{"readonly and destructive", `//mcp:tool name=x readonly destructive`,
			[]string{`file.go:7:28: key "destructive" cannot be used with "readonly"`}},
		{"destructive and readonly", `//mcp:tool destructive name=x readonly`,
			[]string{`file.go:7:31: key "readonly" cannot be used with "destructive"`}},

		// Syntax errors from Parse.
		{"unterminated quote", `//mcp:tool name=x title="Get weather`,
			[]string{`file.go:7:25: unterminated quoted string`}},
		{"unterminated raw quote", "//mcp:tool name=x title=`Get weather",
			[]string{`file.go:7:25: unterminated quoted string`}},
		{"unterminated after escaped quote", `//mcp:tool name=x title="a\"`,
			[]string{`file.go:7:25: unterminated quoted string`}},
		{"bad escape", `//mcp:tool name=x title="a\qb"`,
			[]string{`file.go:7:27: invalid escape sequence in quoted value`}},
		{"bad hex escape", `//mcp:tool name=x title="ok\n\xZZ"`,
			[]string{`file.go:7:30: invalid escape sequence in quoted value`}},
		{"text after quoted value", `//mcp:tool name=x title="a"b readonly`,
			[]string{`file.go:7:28: unexpected "b" after quoted value`}},
		{"quote inside bare value", `//mcp:tool name=x title=say"hi"`,
			[]string{`file.go:7:28: quote inside unquoted value of key "title" (quote the whole value)`}},
		{"missing key", `//mcp:tool name=x =y`,
			[]string{`file.go:7:19: missing key before "="`}},
		{"quoted value without key", `//mcp:tool name=x "hello world"`,
			[]string{`file.go:7:19: quoted value without a key`}},
		{"lone unterminated quote", `//mcp:tool name=x "hello`,
			[]string{`file.go:7:19: unterminated quoted string`}},
		{"bad required value is not missing", `//mcp:tool name="a\z"`,
			[]string{`file.go:7:19: invalid escape sequence in quoted value`}},

		// Every error of a line, in column order.
		{"all errors of a line",
			//        1         2         3         4         5         6
			// 234567890123456789012345678901234567890123456789012345678901234
			`//mcp:tool titel=x readonly=yes name=a name=b scopes=, "stray" description="\q`,
			[]string{
				`file.go:7:12: unknown key "titel" for //mcp:tool (did you mean "title"?)`,
				`file.go:7:29: flag "readonly" takes no value`,
				`file.go:7:40: duplicate key "name" for //mcp:tool`,
				`file.go:7:54: empty element in list for key "scopes"`,
				`file.go:7:56: quoted value without a key`,
				`file.go:7:76: unterminated quoted string`,
			}},
		{"missing key and bad values",
			`//hook:beforeValidaton flow=tools priority=x name=a/b nme=c`,
			[]string{
				`file.go:7:8: unknown stage "beforeValidaton" (did you mean "beforeValidation"?)`,
				`file.go:7:29: unknown flow "tools" (flows: tools:call-tool, tools:list-tools, resources:read-resource, resources:list-resources, resources:list-resource-templates, prompts:get-prompt, prompts:list-prompts, completion:complete, session:initialize, session:ping, resources:subscribe, resources:unsubscribe, logging:set-level, notifications:from-client, notifications:from-server, sampling:create-message, elicitation:create, roots:list-roots)`,
				`file.go:7:44: invalid value "x" for key "priority": unknown priority position "x" (positions: first, cache-store, audit, auth, ratelimit, intercept-request, default, intercept-response, cache, last)`,
				`file.go:7:51: invalid value "a/b" for key "name": want a word of A-Z a-z 0-9 _ . -`,
				`file.go:7:55: unknown key "nme" for //hook:beforeValidaton (did you mean "name"?)`,
			}},
	}
}

// TestColumnsCountBytes checks that columns start at the comment's own column
// and count bytes, as go/token does: a comment after a tab and code, and a
// multi-byte character before the offending key.
func TestColumnsCountBytes(t *testing.T) {
	r := registry()
	// The comment sits after "\t" at column 2 of line 3.
	p := token.Position{Filename: "dir/x.go", Line: 3, Column: 2}
	_, diags := r.ParseComment(`//mcp:tool name=x title=é prioriti=1`, p)
	// "é" is two bytes: the key starts at byte 27 of the comment.
	want := []string{`dir/x.go:3:29: unknown key "prioriti" for //mcp:tool (keys: name, title, description, readonly, destructive, idempotent, openworld, scopes, inputschema, outputschema)`}
	if got := render(diags); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if diags[0].Pos.Offset != 27 {
		t.Errorf("Offset = %d, want 27 (the comment's offset 0 plus 27 bytes)", diags[0].Pos.Offset)
	}
}

func TestParseSyntaxErrorsWithoutDecode(t *testing.T) {
	d, diags := directive.Parse(`//mcp:tool name=x title="oops`, pos)
	if d == nil || d.Name != "tool" || len(diags) != 1 {
		t.Fatalf("Parse = %+v, %v; want the directive and one error", d, diags)
	}
	// Decode of a directive with syntax errors finds nothing more to say
	// about title, but still refuses to return a value.
	dec, more := registry().Decode(d)
	if dec != nil || len(more) != 0 {
		t.Errorf("Decode = %+v, %v; want nil and no further errors", dec, more)
	}
}

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    directive.Diagnostic
		want string
	}{
		{directive.Diagnostic{Pos: token.Position{Filename: "a.go", Line: 1, Column: 3}, Msg: "bad"}, "a.go:1:3: bad"},
		{directive.Diagnostic{Pos: token.Position{Filename: "a.go", Line: 1, Column: 3}, Severity: directive.Warning, Msg: "odd"}, "a.go:1:3: warning: odd"},
		{directive.Diagnostic{Pos: token.Position{Line: 4, Column: 9}, Msg: "bad"}, "4:9: bad"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	if directive.Error.String() != "error" || directive.Warning.String() != "warning" {
		t.Errorf("Severity strings = %q, %q", directive.Error, directive.Warning)
	}
}
