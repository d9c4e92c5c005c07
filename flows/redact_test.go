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
		{"defaults only", nil, `{"a": 1, "db_password": "p"}`, `{"a":1,"db_password":"[REDACTED]"}`},
		{"empty arguments", []string{"x"}, ``, ``},
		{"name at any depth", []string{"ssn"}, `{"ssn":"t","a":{"ssn":"t","b":[{"ssn":"t"}]}}`,
			`{"a":{"b":[{"ssn":"[REDACTED]"}],"ssn":"[REDACTED]"},"ssn":"[REDACTED]"}`},
		{"case-insensitive", []string{"pin"}, `{"PIN":"p","userPin":1}`, `{"PIN":"[REDACTED]","userPin":"[REDACTED]"}`},
		{"case-insensitive path", []string{"Card.NUMBER"}, `{"card":{"number":1}}`, `{"card":{"number":"[REDACTED]"}}`},
		{"path from the top only", []string{"card.number"}, `{"card":{"number":1,"cvc":2},"other":{"card":{"number":3}}}`,
			`{"card":{"cvc":2,"number":"[REDACTED]"},"other":{"card":{"number":3}}}`},
		{"path through arrays", []string{"items.secret"}, `{"items":[{"secret":1,"x":2},{"secret":3}]}`,
			`{"items":[{"secret":"[REDACTED]","x":2},{"secret":"[REDACTED]"}]}`},
		{"wildcard", []string{"users.*.ssn"}, `{"users":{"ada":{"ssn":1,"age":36},"alan":{"ssn":2}}}`,
			`{"users":{"ada":{"age":36,"ssn":"[REDACTED]"},"alan":{"ssn":"[REDACTED]"}}}`},
		{"whole object", []string{"auth"}, `{"auth":{"user":"u","key":"k"}}`, `{"auth":"[REDACTED]"}`},
		{"numbers kept as written", []string{"x"}, `{"n":12345678901234567890,"f":1.50,"x":1}`, `{"f":1.50,"n":12345678901234567890,"x":"[REDACTED]"}`},
		{"nothing hidden, kept as it is", []string{"x"}, `{"b": 1, "a": [2, {"c": 3}]}`, `{"b": 1, "a": [2, {"c": 3}]}`},
		{"escaped key", nil, `{"pass\u0077ord":"p"}`, `{"password":"[REDACTED]"}`},
		{"unclosed, nothing hidden", nil, `{"a":[1`, `"[UNPARSABLE]"`},
		{"not an object", []string{"x"}, `[1,{"x":2}]`, `[1,{"x":"[REDACTED]"}]`},
		{"unparsable", []string{"x"}, `{"x":`, `"[UNPARSABLE]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := flows.NewRedactor(flows.Redaction{Fields: tt.fields})
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
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"card.number"}})
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
	for _, field := range []string{"", ".", "a..b", "a.", ".a", "items.*.", "_", "--"} {
		_, err := flows.NewRedactor(flows.Redaction{Fields: []string{"ok", field}})
		if flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), fmt.Sprintf("%q", field)) {
			t.Errorf("NewRedactor(%q) = %v, want a CodeInvalid error quoting it", field, err)
		}
	}
}

// A hostile caller's deeply nested arguments are redacted without
// exhausting the stack: the JSON decoder bounds their depth, and what it
// refuses is recorded as unparsable.
func TestRedactDeep(t *testing.T) {
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"x"}})
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

// A nil Redactor allocates nothing: a reader without one pays nothing
// per run.
func TestRedactNilAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are meaningless")
	}
	var r *flows.Redactor
	raw := json.RawMessage(`{"password":"p","n":1}`)
	if allocs := testing.AllocsPerRun(100, func() { r.Redact(raw) }); allocs != 0 {
		t.Errorf("a nil Redactor's Redact allocates %v times, want 0", allocs)
	}
}

// Arguments without a hidden field come back as they are, without
// allocating: a reader pays for decoding only the runs it redacts.
func TestRedactCleanAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are meaningless")
	}
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"ssn"}})
	if err != nil {
		t.Fatal(err)
	}
	raw := json.RawMessage(`{"user":{"name":"ada","max_tokens":5},"items":[{"author":"a","n":1}],"note":"hello"}`)
	if got := r.Redact(raw); string(got) != string(raw) {
		t.Fatalf("got %s, want the arguments as they are", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { r.Redact(raw) }); allocs != 0 {
		t.Errorf("Redact of arguments without a secret allocates %v times, want 0", allocs)
	}
}

func BenchmarkRedact(b *testing.B) {
	secret := json.RawMessage(`{"user":{"name":"ada","password":"p"},"items":[{"token":"t","n":1},{"token":"u","n":2}],"note":"hello"}`)
	clean := json.RawMessage(`{"user":{"name":"ada","max_tokens":5},"items":[{"author":"a","n":1},{"author":"b","n":2}],"note":"hello"}`)
	for _, bc := range []struct {
		name   string
		fields []string
		raw    json.RawMessage
	}{{"clean", nil, clean}, {"secret", nil, secret}, {"path", []string{"items.n"}, clean}} {
		r, err := flows.NewRedactor(flows.Redaction{Fields: bc.fields})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(bc.raw)
			}
		})
	}
}
