package guidance_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/exttest"
	guidanceext "github.com/hookflow/hookflow/cmd/hookgen/internal/ext/guidance"
	"github.com/hookflow/hookflow/plugins/guidance"
)

var pos = exttest.Pos

// TestGuidanceDecode decodes //mcp:guidance lines, renders them in
// canonical form and reads that back.
func TestGuidanceDecode(t *testing.T) {
	tests := []struct {
		line      string
		want      guidanceext.Directive
		canonical string
	}{
		{
			`//mcp:guidance tag=tips lifecycle=end level=SHOULD`,
			guidanceext.Directive{Tag: "tips", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.Should},
			`//mcp:guidance tag=tips lifecycle=end level=SHOULD`,
		},
		{
			`//mcp:guidance storage=memory,file features=sampling,roots file=docs/tips.md priority=60 level=MUST-NOT description="For people." ` +
				`name="Weather tips" lifecycle=start type=storage tag=weather.tips_2`,
			guidanceext.Directive{Tag: "weather.tips_2", Type: guidance.TypeStorage, Lifecycle: guidance.Start, Level: guidance.MustNot,
				Name: "Weather tips", Description: "For people.", Priority: 60, File: "docs/tips.md",
				Features: []guidance.Feature{guidance.Sampling, guidance.Roots}, Storage: []string{"memory", "file"}},
			`//mcp:guidance tag=weather.tips_2 type=storage lifecycle=start level=MUST-NOT name="Weather tips" description="For people." ` +
				`priority=60 file=docs/tips.md features=sampling,roots storage=memory,file`,
		},
		{
			`//mcp:guidance tag=x lifecycle=cancel level=SHOULD_NOT type=action`,
			guidanceext.Directive{Tag: "x", Type: guidance.TypeAction, Lifecycle: guidance.Cancel, Level: guidance.ShouldNot},
			`//mcp:guidance tag=x lifecycle=cancel level=SHOULD-NOT`,
		},
	}
	r := exttest.Registry(t, guidanceext.New())
	for _, tt := range tests {
		dec, diags := r.ParseComment(tt.line, pos)
		if dec == nil {
			t.Errorf("ParseComment(%q): %q", tt.line, exttest.Render(diags))
			continue
		}
		if !reflect.DeepEqual(dec.Value, tt.want) {
			t.Errorf("ParseComment(%q) = %#v, want %#v", tt.line, dec.Value, tt.want)
		}
		if got := dec.Value.Canonical(); got != tt.canonical {
			t.Errorf("Canonical =\n\t%s\nwant\n\t%s", got, tt.canonical)
		}
		again, diags := r.ParseComment(tt.canonical, pos)
		if again == nil || !reflect.DeepEqual(again.Value, tt.want) {
			t.Errorf("the canonical form reads back as %v, %q", again, exttest.Render(diags))
		}
	}
}

func TestGuidanceErrors(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`//mcp:guidance tag=x lifecycle=end`, []string{`file.go:7:7: missing required key "level" for //mcp:guidance`}},
		{`//mcp:guidance tag=x lifecycle=end level=should`,
			[]string{`file.go:7:42: invalid value "should" for key "level": want MUST, MUST-NOT, SHOULD, SHOULD-NOT or MAY (did you mean "SHOULD"?)`}},
		{`//mcp:guidance tag=x lifecycle=end level="MUST NOT"`,
			[]string{`file.go:7:42: invalid value for key "level": a word must not be quoted`}},
		{`//mcp:guidance tag=x lifecycle=strat level=MAY`,
			[]string{`file.go:7:32: invalid value "strat" for key "lifecycle": want start, running, progress, cancel or end (did you mean "start"?)`}},
		{`//mcp:guidance tag=x/y lifecycle=end level=MAY`,
			[]string{`file.go:7:20: invalid value "x/y" for key "tag": want a word of A-Z a-z 0-9 _ . -`}},
		{`//mcp:guidance tag=.x lifecycle=end level=MAY`,
			[]string{`file.go:7:20: invalid value ".x" for key "tag": ".x" must start with a letter or a digit`}},
		{`//mcp:guidance tag=x type=tool lifecycle=end level=MAY`,
			[]string{`file.go:7:27: invalid value "tool" for key "type": want action, storage, config or session`}},
		{`//mcp:guidance tag=x lifecycle=end level=MAY features=sampling,tools`,
			[]string{`file.go:7:64: invalid element "tools" in list for key "features": a server feature: conditions test the client's features (sampling, elicitation, roots)`}},
		{`//mcp:guidance tag=x lifecycle=end level=MAY file=../x.md`,
			[]string{`file.go:7:51: invalid value "../x.md" for key "file": want a slash-separated path relative to the Go file's directory, without . or .. elements`}},
		{`//mcp:guidance tag=x lifecycle=end level=MAY file=docs/*.md`,
			[]string{`file.go:7:51: invalid value "docs/*.md" for key "file": the path must not hold * ? [ ] or \ (//go:embed reads them as patterns)`}},
		{`//mcp:guidance tag=x lifecycle=end level=MAY priorty=3`,
			[]string{`file.go:7:46: unknown key "priorty" for //mcp:guidance (did you mean "priority"?)`}},
	}
	r := exttest.Registry(t, guidanceext.New())
	for _, tt := range tests {
		dec, diags := r.ParseComment(tt.line, pos)
		if dec != nil {
			t.Errorf("ParseComment(%q) decoded %#v", tt.line, dec.Value)
		}
		if got := exttest.Render(diags); !slices.Equal(got, tt.want) {
			t.Errorf("ParseComment(%q):\ngot:\n\t%s\nwant:\n\t%s", tt.line, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
		}
	}
}
