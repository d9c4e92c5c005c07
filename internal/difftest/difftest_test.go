package difftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, corpus, err string
	}{
		{"ok", "# c\n\n{\"name\":\"a\",\"json\":{\"id\":1.50}}\n", ""},
		{"unknown field", `{"name":"a","jsno":1}`, "unknown field"},
		{"no name", `{"json":1}`, "a name of its own"},
		{"duplicate", "{\"name\":\"a\"}\n{\"name\":\"a\"}", "a name of its own"},
		{"bad leg", `{"name":"a","legs":["both"]}`, "leg \"both\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := Parse([]byte(tc.corpus), "c")
			if tc.err == "" {
				if err != nil || len(cases) != 1 || string(cases[0].steps()[0].body()) != `{"id":1.50}` {
					t.Fatalf("cases=%+v err=%v", cases, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one with %q", err, tc.err)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"s": "x", "s1": "one", "session": "S"}
	for in, want := range map[string]string{
		"$session": "S", "$s1-$s": "one-x", "$s10": "$s10", "a$": "a$", "$$s": "$x", "plain": "plain",
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRows(t *testing.T) {
	doc := "# T\n\n## Diffs\n\nText.\n\n| Row | Input | go-sdk | hookflow | Why |\n|---|---|---|---|---|\n" +
		"| `a` | in | `400 text/plain` | `400 application/json -32700`, `400 application/json -32600` | why |\n" +
		"| `b` | in | `200 text/event-stream` | `200 application/json`; the same messages | why |\n\n## Next\n"
	path := filepath.Join(t.TempDir(), "d.md")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	rows, err := LoadRows(path, "Diffs")
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows=%+v err=%v", rows, err)
	}
	plain := &Outcome{Status: 400, Type: "text/plain"}
	parse := &Outcome{Status: 400, Type: "application/json", Codes: []int64{-32700}, Messages: []string{"e"}}
	sse := &Outcome{Status: 200, Type: "text/event-stream", Messages: []string{"m"}}
	js := &Outcome{Status: 200, Type: "application/json", Messages: []string{"m"}}
	other := &Outcome{Status: 200, Type: "application/json", Messages: []string{"n"}}
	for _, tc := range []struct {
		a, b *Outcome
		want bool
	}{
		{plain, parse, true}, {parse, plain, false}, {sse, js, true}, {sse, other, false}, {plain, js, false},
	} {
		if got := rows.Explains(tc.a, tc.b); got != tc.want {
			t.Errorf("Explains(%s, %s) = %v, want %v", tc.a.Summary(), tc.b.Summary(), got, tc.want)
		}
	}
	if _, err := LoadRows(path, "Missing"); err == nil {
		t.Error("no error for a missing heading")
	}
}
