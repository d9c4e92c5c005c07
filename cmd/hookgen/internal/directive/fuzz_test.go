package directive_test

import (
	"go/token"
	"reflect"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// FuzzParse feeds arbitrary comment lines through Parse, Decode, Lookalike
// and ParseComment. It checks that nothing panics, that every diagnostic lies
// inside the comment (line, file, and a column between the "//" and the last
// byte), that a line is either a directive or a look-alike, never both, and
// that a decoded directive round-trips through its canonical form.
func FuzzParse(f *testing.F) {
	for _, tt := range decodeTests() {
		f.Add(tt.line)
	}
	for _, tt := range errorTests() {
		f.Add(tt.line)
	}
	for _, tt := range lookalikeTests() {
		f.Add(tt.line)
	}
	for _, s := range []string{
		"//hook:beforeExecute flow=\"tools:call-tool\" priority=`1`",
		"//mcp:tool name=x title=\"a\\u00e9\\x41\\101\"",
		"//mcp:tool name=x title=\"\\",
		"//mcp:tool name=x title=\"a\nb\"",
		"//mcp:tool name=x title=`a\rb`",
		"//mcp:tool name=x title=\xff\xfe",
		"//mcp:tool name=x\x00 title=\x00",
		"//hook:onError\vpriority=1\fname=a",
		"//mcp:tool ==== === \"\" `` =\"\"",
	} {
		f.Add(s)
	}

	r := registry()
	p := token.Position{Filename: "fuzz.go", Offset: 40, Line: 3, Column: 9}
	f.Fuzz(func(t *testing.T, text string) {
		inside := func(what string, ds ...directive.Diagnostic) {
			t.Helper()
			for _, d := range ds {
				off := d.Pos.Column - p.Column
				if d.Pos.Filename != p.Filename || d.Pos.Line != p.Line || off < 0 || off >= len(text) || d.Pos.Offset != p.Offset+off {
					t.Fatalf("%s(%q): diagnostic %q at %+v lies outside the comment", what, text, d.Msg, d.Pos)
				}
				if d.Msg == "" {
					t.Fatalf("%s(%q): empty message", what, text)
				}
			}
		}

		d, diags := directive.Parse(text, p)
		inside("Parse", diags...)
		if d == nil && diags != nil {
			t.Fatalf("Parse(%q) returned diagnostics without a directive", text)
		}
		w := r.Lookalike(text, p)
		if w != nil {
			inside("Lookalike", *w)
			if d != nil {
				t.Fatalf("%q is both a directive and a look-alike", text)
			}
		}
		dec, more := r.Decode(d)
		inside("Decode", more...)
		if dec != nil && (len(diags) > 0 || len(more) > 0) {
			t.Fatalf("Decode(%q) returned a value along with errors", text)
		}

		all, allDiags := r.ParseComment(text, p)
		inside("ParseComment", allDiags...)
		if w != nil && (all != nil || len(allDiags) != 1 || allDiags[0] != *w) {
			t.Fatalf("ParseComment(%q) = %v, %q; want only the warning %q", text, all, allDiags, w)
		}
		if (all != nil) != (dec != nil) || w == nil && len(allDiags) != len(diags)+len(more) {
			t.Fatalf("ParseComment(%q) disagrees with Parse+Decode: %v %q vs %v %q %q", text, all, allDiags, dec, diags, more)
		}
		if dec == nil {
			return
		}
		for _, tg := range []directive.Target{directive.TargetType, directive.TargetMethod, directive.TargetFunc} {
			if e := dec.CheckTarget(tg); e != nil {
				inside("CheckTarget", *e)
			}
		}

		canon := dec.Value.Canonical()
		again, diags2 := r.ParseComment(canon, p)
		if again == nil {
			t.Fatalf("canonical form of %q does not parse:\n%s\n%q", text, canon, render(diags2))
		}
		if !reflect.DeepEqual(again.Value, dec.Value) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", text, canon, again.Value, dec.Value)
		}
		if c2 := again.Value.Canonical(); c2 != canon {
			t.Fatalf("canonical form is not stable: %q then %q", canon, c2)
		}
	})
}

// FuzzCanonical checks the other direction of the round trip: any free-text
// value written by Canonical reads back unchanged, whatever bytes it holds.
func FuzzCanonical(f *testing.F) {
	f.Add("Get weather", `say "hi"`+"\n\t\\", "review code")
	f.Add("", "\xff\x00`", "a=b")
	r := registry()
	f.Fuzz(func(t *testing.T, title, description, name string) {
		values := []directive.Value{
			directive.Tool{Name: "t", Title: title, Description: description},
			directive.Prompt{Name: "p", Title: title, Description: description},
			directive.Resource{URI: "test://x", Name: name, Title: title, Description: description},
			directive.PromptArg{Name: "a", Title: title, Description: description},
		}
		if name != "" {
			values = append(values, directive.Prompt{Name: name})
		}
		for _, v := range values {
			c := v.Canonical()
			dec, diags := r.ParseComment(c, pos)
			if dec == nil {
				t.Fatalf("Canonical %q does not parse: %q", c, render(diags))
			}
			if !reflect.DeepEqual(dec.Value, v) {
				t.Fatalf("round trip through %q:\n got %#v\nwant %#v", c, dec.Value, v)
			}
		}
	})
}
