package flows_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name   string
		fields []string
		in     string
		want   string
	}{
		{"none", nil, `{"a": 1}`, `{"a": 1}`},
		{"empty arguments", []string{"x"}, ``, ``},
		{"name at any depth", []string{"token"}, `{"token":"t","a":{"token":"t","b":[{"token":"t"}]}}`,
			`{"a":{"b":[{"token":"[REDACTED]"}],"token":"[REDACTED]"},"token":"[REDACTED]"}`},
		{"case-insensitive", []string{"password"}, `{"PassWord":"p"}`, `{"PassWord":"[REDACTED]"}`},
		{"case-insensitive path", []string{"Card.NUMBER"}, `{"card":{"number":1}}`, `{"card":{"number":"[REDACTED]"}}`},
		{"path from the top only", []string{"card.number"}, `{"card":{"number":1,"cvc":2},"other":{"card":{"number":3}}}`,
			`{"card":{"cvc":2,"number":"[REDACTED]"},"other":{"card":{"number":3}}}`},
		{"path through arrays", []string{"items.secret"}, `{"items":[{"secret":1,"x":2},{"secret":3}]}`,
			`{"items":[{"secret":"[REDACTED]","x":2},{"secret":"[REDACTED]"}]}`},
		{"wildcard", []string{"users.*.ssn"}, `{"users":{"ada":{"ssn":1,"age":36},"alan":{"ssn":2}}}`,
			`{"users":{"ada":{"age":36,"ssn":"[REDACTED]"},"alan":{"ssn":"[REDACTED]"}}}`},
		{"whole object", []string{"auth"}, `{"auth":{"user":"u","key":"k"}}`, `{"auth":"[REDACTED]"}`},
		{"numbers kept as written", []string{"x"}, `{"n":12345678901234567890,"f":1.50}`, `{"f":1.50,"n":12345678901234567890}`},
		{"not an object", []string{"x"}, `[1,{"x":2}]`, `[1,{"x":"[REDACTED]"}]`},
		{"unparsable", []string{"x"}, `{"x":`, `"[UNPARSABLE]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := flows.NewRedactor(tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(r.Redact([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// RedactValue redacts arguments that are Go values as Redact redacts
// their JSON; a nil Redactor redacts nothing.
func TestRedactValue(t *testing.T) {
	r, err := flows.NewRedactor([]string{"secret", "card.number"})
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"secret": "s", "card": map[string]any{"number": "4111"}, "note": "hi"}
	if got, want := string(r.RedactValue(v)), `{"card":{"number":"[REDACTED]"},"note":"hi","secret":"[REDACTED]"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var none *flows.Redactor
	if got := string(none.RedactValue(map[string]any{"secret": "s"})); got != `{"secret":"s"}` {
		t.Errorf("nil Redactor: %s", got)
	}
	if got := string(none.Redact(json.RawMessage(`{"secret":"s"}`))); got != `{"secret":"s"}` {
		t.Errorf("nil Redactor: %s", got)
	}
}

// A field with an empty name is refused with CodeInvalid, quoting it.
func TestNewRedactorInvalid(t *testing.T) {
	for _, field := range []string{"", ".", "a..b", "a.", ".a", "items.*."} {
		_, err := flows.NewRedactor([]string{"ok", field})
		if flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), fmt.Sprintf("%q", field)) {
			t.Errorf("NewRedactor(%q) = %v, want a CodeInvalid error quoting it", field, err)
		}
	}
}

// A hostile caller's deeply nested arguments are redacted without
// exhausting the stack: the JSON decoder bounds their depth, and what it
// refuses is recorded as unparsable.
func TestRedactDeep(t *testing.T) {
	r, err := flows.NewRedactor([]string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{1_000, 100_000} {
		in := strings.Repeat(`{"a":`, depth) + `{"x":1}` + strings.Repeat(`}`, depth)
		got := r.Redact(json.RawMessage(in))
		if depth > 10_000 {
			if string(got) != `"[UNPARSABLE]"` {
				t.Errorf("depth %d: got %.40s…", depth, got)
			}
			continue
		}
		if !strings.Contains(string(got), `{"x":"[REDACTED]"}`) {
			t.Errorf("depth %d: not redacted: %.40s…", depth, got)
		}
	}
}

// Redacting nothing allocates nothing: a reader with an empty field list
// pays nothing per run.
func TestRedactNothingAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are meaningless")
	}
	r, err := flows.NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	raw := json.RawMessage(`{"password":"p","n":1}`)
	if allocs := testing.AllocsPerRun(100, func() { r.Redact(raw) }); allocs != 0 {
		t.Errorf("Redact with no fields allocates %v times, want 0", allocs)
	}
}

func BenchmarkRedact(b *testing.B) {
	raw := json.RawMessage(`{"user":{"name":"ada","password":"p"},"items":[{"token":"t","n":1},{"token":"u","n":2}],"note":"hello"}`)
	for _, fields := range [][]string{nil, {"password", "items.token"}} {
		r, err := flows.NewRedactor(fields)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("fields=%d", len(fields)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(raw)
			}
		})
	}
}
