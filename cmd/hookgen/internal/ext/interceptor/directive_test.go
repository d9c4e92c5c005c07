package interceptor_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/exttest"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/interceptor"
)

var pos = exttest.Pos

// //hook:validator and //hook:mutator decode to their value, whose
// canonical form decodes to it again.
func TestDecodeInterceptors(t *testing.T) {
	r := exttest.Registry(t, interceptor.New())
	tests := []struct {
		line      string
		want      interceptor.Directive
		canonical string
	}{
		{`//hook:validator events=tools/call`,
			interceptor.Directive{Events: []string{"tools/call"}},
			`//hook:validator events=tools/call`},
		{`//hook:validator name=policy/v1 events=tools/call,resources/* phase=both audit failopen description="Checks policy." version=1.2.0`,
			interceptor.Directive{Name: "policy/v1", Events: []string{"tools/call", "resources/*"}, Phase: "both", Audit: true, FailOpen: true, Description: "Checks policy.", Version: "1.2.0"},
			`//hook:validator name=policy/v1 events=tools/call,resources/* phase=both audit failopen description="Checks policy." version=1.2.0`},
		{`//hook:mutator priorityhint=-100000 events=* phase=response`,
			interceptor.Directive{Mutator: true, Events: []string{"*"}, Phase: "response", PriorityHint: -100000, HasHint: true},
			`//hook:mutator events=* phase=response priorityhint=-100000`},
		{`//hook:mutator events=tools/call priorityhint=0`,
			interceptor.Directive{Mutator: true, Events: []string{"tools/call"}, HasHint: true},
			`//hook:mutator events=tools/call priorityhint=0`},
	}
	for _, tt := range tests {
		dec, diags := r.ParseComment(tt.line, pos)
		if len(diags) > 0 {
			t.Fatalf("%s: %v", tt.line, exttest.Render(diags))
		}
		if !reflect.DeepEqual(dec.Value, tt.want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", tt.line, dec.Value, tt.want)
		}
		if got := dec.Value.Canonical(); got != tt.canonical {
			t.Errorf("%s: canonical %s, want %s", tt.line, got, tt.canonical)
		}
		again, diags := r.ParseComment(tt.canonical, pos)
		if len(diags) > 0 || !reflect.DeepEqual(again.Value, tt.want) {
			t.Errorf("%s: the canonical form decodes to %#v, %v", tt.line, again, exttest.Render(diags))
		}
		if dec.CheckTarget(directive.TargetFunc) != nil || dec.CheckTarget(directive.TargetMethod) == nil {
			t.Errorf("%s: an interceptor sits on a top-level function only", tt.line)
		}
	}
}

func TestInterceptorErrors(t *testing.T) {
	r := exttest.Registry(t, interceptor.New())
	tests := []struct {
		line string
		want []string
	}{
		{`//hook:validator`, []string{`file.go:7:8: missing required key "events" for //hook:validator`}},
		{`//hook:validator events=tools`, []string{`file.go:7:25: invalid element "tools" in list for key "events": want an event such as tools/call, a namespace such as tools/*, or *`}},
		{`//hook:validator events=*/call,tools/c*`, []string{
			`file.go:7:25: invalid element "*/call" in list for key "events": want an event such as tools/call, a namespace such as tools/*, or *`,
			`file.go:7:32: invalid element "tools/c*" in list for key "events": want an event such as tools/call, a namespace such as tools/*, or *`}},
		{`//hook:validator events=tools/call phase=both2`, []string{`file.go:7:42: invalid value "both2" for key "phase": want request, response or both`}},
		{`//hook:validator events=tools/call priorityhint=1`, []string{`file.go:7:36: unknown key "priorityhint" for //hook:validator (keys: name, events, phase, audit, failopen, description, version)`}},
		{`//hook:mutator events=tools/call priorityhint=2147483648`, []string{`file.go:7:47: invalid value "2147483648" for key "priorityhint": out of range for int32`}},
		{`//hook:mutator events=tools/call name="a b"`, []string{`file.go:7:39: invalid value "a b" for key "name": must not contain spaces or control characters`}},
		{`//hook:mutator events=tools/call failopen=yes`, []string{`file.go:7:43: flag "failopen" takes no value`}},
		{`//hook:validater events=tools/call`, []string{`file.go:7:8: unknown directive "hook:validater" (did you mean "hook:validator"?)`}},
	}
	for _, tt := range tests {
		dec, diags := r.ParseComment(tt.line, pos)
		if dec != nil {
			t.Errorf("%s decoded %#v", tt.line, dec.Value)
		}
		if got := exttest.Render(diags); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\ngot:\n\t%s\nwant:\n\t%s", tt.line, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
		}
	}
}
