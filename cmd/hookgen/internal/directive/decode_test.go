package directive_test

import (
	"go/token"
	"reflect"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

type decodeTest struct {
	line      string
	want      directive.Value
	canonical string
}

// decodeTests are valid directive lines with their typed value and canonical
// form; they also seed FuzzParse.
func decodeTests() []decodeTest {
	return []decodeTest{
		{
			`//mcp:tool name=get_weather`,
			directive.Tool{Name: "get_weather"},
			`//mcp:tool name=get_weather`,
		},
		{
			`//mcp:tool   name=weather/get.v2-x	title="Get the \"weather\"" description=` + "`raw \\n text`" + ` readonly idempotent openworld scopes=read,write,mcp:admin`,
			directive.Tool{Name: "weather/get.v2-x", Title: `Get the "weather"`, Description: `raw \n text`, ReadOnly: true, Idempotent: true, OpenWorld: true, Scopes: []string{"read", "write", "mcp:admin"}},
			`//mcp:tool name=weather/get.v2-x title="Get the \"weather\"" description="raw \\n text" readonly idempotent openworld scopes=read,write,mcp:admin`,
		},
		{
			`//mcp:tool destructive name=rm title=Remove description="" scopes=files:write`,
			directive.Tool{Name: "rm", Title: "Remove", Destructive: true, Scopes: []string{"files:write"}},
			`//mcp:tool name=rm title=Remove destructive scopes=files:write`,
		},
		{
			`//mcp:tool name=x title="héllo, wörld\t☃"`,
			directive.Tool{Name: "x", Title: "héllo, wörld\t☃"},
			`//mcp:tool name=x title="héllo, wörld\t☃"`,
		},
		{
			`//mcp:resource uri=test://static-text`,
			directive.Resource{URI: "test://static-text"},
			`//mcp:resource uri=test://static-text`,
		},
		{
			`//mcp:resource uri=file:///etc/motd?x=1,2 name=motd title="Message of the day" description=greeting mime="text/plain; charset=utf-8"`,
			directive.Resource{URI: "file:///etc/motd?x=1,2", Name: "motd", Title: "Message of the day", Description: "greeting", MIMEType: "text/plain; charset=utf-8"},
			`//mcp:resource uri=file:///etc/motd?x=1,2 name=motd title="Message of the day" description=greeting mime="text/plain; charset=utf-8"`,
		},
		{
			`//mcp:resource-template uri="test://template/{id}/data" mime=application/json name=data`,
			directive.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "data", MIMEType: "application/json"},
			`//mcp:resource-template uri=test://template/{id}/data name=data mime=application/json`,
		},
		{
			`//mcp:resource-template uri=test://{+path}{?q,lang} title=Search`,
			directive.ResourceTemplate{URITemplate: "test://{+path}{?q,lang}", Title: "Search"},
			`//mcp:resource-template uri=test://{+path}{?q,lang} title=Search`,
		},
		{
			`//mcp:prompt name=review_code title="Review code" description="Asks for a review."`,
			directive.Prompt{Name: "review_code", Title: "Review code", Description: "Asks for a review."},
			`//mcp:prompt name=review_code title="Review code" description="Asks for a review."`,
		},
		{
			`//mcp:prompt name="code review"`,
			directive.Prompt{Name: "code review"},
			`//mcp:prompt name="code review"`,
		},
		{
			`//mcp:prompt name=review args=code,language?,style_guide.v2?`,
			directive.Prompt{Name: "review", Args: []directive.PromptArg{{Name: "code", Required: true}, {Name: "language"}, {Name: "style_guide.v2"}}},
			`//mcp:prompt name=review args=code,language?,style_guide.v2?`,
		},
		{
			`//mcp:tool name=raw inputschema=rawSchema outputschema=Out_2`,
			directive.Tool{Name: "raw", InputSchema: "rawSchema", OutputSchema: "Out_2"},
			`//mcp:tool name=raw inputschema=rawSchema outputschema=Out_2`,
		},
		{
			`//mcp:arg name=code description="The code to review." title=Code`,
			directive.PromptArg{Name: "code", Title: "Code", Description: "The code to review.", Required: true},
			`//mcp:arg name=code title=Code description="The code to review."`,
		},
		{
			`//mcp:arg optional name=language`,
			directive.PromptArg{Name: "language"},
			`//mcp:arg name=language optional`,
		},
		{
			`//mcp:plugin name=audit`,
			directive.Plugin{Name: "audit"},
			`//mcp:plugin name=audit`,
		},
		{
			`//hook:beforeExecute`,
			directive.HookDirective{Stage: stages.BeforeExecute},
			`//hook:beforeExecute`,
		},
		{
			`//hook:finally name=log.v2_x-y priority=-10 flow=tools:call-tool`,
			directive.HookDirective{Stage: stages.Finally, Flow: flows.ToolsCallTool, HasFlow: true, Priority: -10, Name: "log.v2_x-y"},
			`//hook:finally flow=tools:call-tool priority=-10 name=log.v2_x-y`,
		},
		{
			`//hook:beforeValidation priority=auth+10`,
			directive.HookDirective{Stage: stages.BeforeValidation, Priority: priority.Auth + 10},
			`//hook:beforeValidation priority=auth+10`,
		},
		{
			`//hook:beforeExecute priority=cache-1`,
			directive.HookDirective{Stage: stages.BeforeExecute, Priority: priority.Cache - 1},
			`//hook:beforeExecute priority=cache-1`,
		},
		{
			`//hook:onError priority=0x7fff_ffff`,
			directive.HookDirective{Stage: stages.OnError, Priority: 2147483647},
			`//hook:onError priority=first`,
		},
		{
			`//hook:afterValidation priority=-0b1000_0000_0000_0000_0000_0000_0000_0000 flow=session:initialize`,
			directive.HookDirective{Stage: stages.AfterValidation, Flow: flows.SessionInitialize, HasFlow: true, Priority: -2147483648},
			`//hook:afterValidation flow=session:initialize priority=last`,
		},
		{
			`//hook:beforeValidation priority=0o17 flow=resources:read-resource`,
			directive.HookDirective{Stage: stages.BeforeValidation, Flow: flows.ResourcesReadResource, HasFlow: true, Priority: 15},
			`//hook:beforeValidation flow=resources:read-resource priority=15`,
		},
		{
			"//hook:afterExecute priority=+0 \t\r",
			directive.HookDirective{Stage: stages.AfterExecute},
			`//hook:afterExecute`,
		},
	}
}

func TestDecode(t *testing.T) {
	r := registry()
	for _, tt := range decodeTests() {
		dec, diags := r.ParseComment(tt.line, pos)
		if len(diags) > 0 || dec == nil {
			t.Errorf("ParseComment(%q): unexpected %q", tt.line, render(diags))
			continue
		}
		if !reflect.DeepEqual(dec.Value, tt.want) {
			t.Errorf("ParseComment(%q) = %#v, want %#v", tt.line, dec.Value, tt.want)
		}
		if got := dec.Value.Canonical(); got != tt.canonical {
			t.Errorf("Canonical(%q) =\n\t%s\nwant\n\t%s", tt.line, got, tt.canonical)
		}
		// The canonical form reads back to the same value.
		again, diags := r.ParseComment(tt.canonical, pos)
		if len(diags) > 0 || again == nil || !reflect.DeepEqual(again.Value, tt.want) {
			t.Errorf("ParseComment(%q) = %v, %q; want %#v", tt.canonical, again, render(diags), tt.want)
		}
	}
}

// TestPositions checks the positions Decode keeps for the generator's later
// errors: the "//", the directive name, each key and each value.
func TestPositions(t *testing.T) {
	//                  1         2         3         4
	//         1234567890123456789012345678901234567890123456
	line := `//hook:beforeExecute flow=tools:call-tool readonly= name="x"`
	d, diags := directive.Parse(line, token.Position{Filename: "f.go", Offset: 50, Line: 2, Column: 5})
	if len(diags) > 0 {
		t.Fatal(render(diags))
	}
	col := func(p token.Position) int { return p.Column }
	if d.Pos.Column != 5 || col(d.NamePos) != 12 || d.NamePos.Offset != 57 || d.Head() != "//hook:beforeExecute" {
		t.Errorf("Pos %v, NamePos %v, Head %q", d.Pos, d.NamePos, d.Head())
	}
	want := []directive.Arg{
		{Key: "flow", Value: "tools:call-tool", HasValue: true, Pos: at(2, 26), ValuePos: at(2, 31)},
		{Key: "readonly", HasValue: true, Pos: at(2, 47), ValuePos: at(2, 55)},
		{Key: "name", Value: "x", HasValue: true, Quoted: true, Pos: at(2, 57), ValuePos: at(2, 62)},
	}
	if !reflect.DeepEqual(d.Args, want) {
		t.Errorf("Args =\n%+v\nwant\n%+v", d.Args, want)
	}
	if a, ok := d.Arg("name"); !ok || a.Value != "x" {
		t.Errorf(`Arg("name") = %+v, %v`, a, ok)
	}
	if _, ok := d.Arg("priority"); ok {
		t.Error(`Arg("priority") found an argument that is not there`)
	}
}

// at is the position of column c on line l of f.go, whose offset 50 is at
// column 5.
func at(l, c int) token.Position {
	return token.Position{Filename: "f.go", Offset: 50 + c - 5, Line: l, Column: c}
}

func TestNotOurs(t *testing.T) {
	r := registry()
	for _, line := range []string{
		"",
		"/",
		"//",
		"// a comment",
		"//go:generate hookgen",
		"//go:build !hookgen",
		"//nolint:errcheck",
		"//export Foo",
		"//line a.go:1",
		"//mcptool name=x",
		"//mcp-tool name=x",
		"//hooks:beforeExecute",
		"//xhook:beforeExecute",
		"/*mcp:tool name=x*/",
		"/*hook:beforeExecute*/",
		"//mcp:",
		"//hook: beforeExecute",
		"//hook:BeforeExecute",
		"//hook:-x",
	} {
		if d, diags := directive.Parse(line, pos); d != nil || diags != nil {
			t.Errorf("Parse(%q) = %+v, %v; want nil, nil", line, d, diags)
		}
		if notLookalike(line) {
			if dec, diags := r.ParseComment(line, pos); dec != nil || diags != nil {
				t.Errorf("ParseComment(%q) = %+v, %v; want nil, nil", line, dec, diags)
			}
		}
	}
	if dec, diags := r.Decode(nil); dec != nil || diags != nil {
		t.Errorf("Decode(nil) = %v, %v", dec, diags)
	}
}

// notLookalike reports whether line is not one of hookgen's look-alikes (those
// give a warning from ParseComment; TestLookalike covers them).
func notLookalike(line string) bool {
	return registry().Lookalike(line, pos) == nil
}

func TestCheckTarget(t *testing.T) {
	r := registry()
	tests := []struct {
		line   string
		target directive.Target
		want   string // "" for no error
	}{
		{`//mcp:tool name=x`, directive.TargetType, ""},
		{`//mcp:tool name=x`, directive.TargetMethod, `file.go:7:1: //mcp:tool must be on a type, not on a method`},
		{`//mcp:plugin name=x`, directive.TargetFunc, `file.go:7:1: //mcp:plugin must be on a type, not on a function`},
		{`//hook:beforeExecute`, directive.TargetMethod, ""},
		{`//hook:beforeExecute`, directive.TargetFunc, ""},
		{`//hook:beforeExecute`, directive.TargetType, `file.go:7:1: //hook:beforeExecute must be on a method or function, not on a type`},
	}
	for _, tt := range tests {
		dec, diags := r.ParseComment(tt.line, pos)
		if dec == nil {
			t.Fatalf("%q: %q", tt.line, render(diags))
		}
		got := ""
		if d := dec.CheckTarget(tt.target); d != nil {
			got = d.String()
		}
		if got != tt.want {
			t.Errorf("CheckTarget(%q, %v) = %q, want %q", tt.line, tt.target, got, tt.want)
		}
	}
}
