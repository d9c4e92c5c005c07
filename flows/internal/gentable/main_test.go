package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedIsFresh fails when flows/table_gen.go does not match the flow
// table: run `go generate ./flows`.
func TestGeneratedIsFresh(t *testing.T) {
	src, err := os.ReadFile("../../table.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../table_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("flows/table_gen.go is stale: run `go generate ./flows`")
	}
}

func TestParseTableErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no table", "package flows\n", "no `var table"},
		{"missing method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB"}}`, "needs ID, Const and Method"},
		{"unexported const", `package flows
var table = [Count]Info{{ID: "a:b", Const: "ab", Method: "a/b"}}`, "not an exported Go identifier"},
		{"duplicate method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b"}, {ID: "a:c", Const: "AC", Method: "a/b"}}`, "duplicate received method a/b"},
		{"duplicate sent method", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Direction: FromServer}, {ID: "a:c", Const: "AC", Method: "a/b", Direction: FromServer}}`, "duplicate sent method a/b"},
		{"bad direction", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b", Direction: Sideways}}`, "Direction must be FromClient or FromServer"},
		{"star inside", `package flows
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/*/b"}}`, "only a method may end in"},
		{"not a literal", `package flows
var table = [Count]Info{{ID: id, Const: "AB", Method: "a/b"}}`, "must be a string literal"},
		{"positional", `package flows
var table = [Count]Info{{"a:b"}}`, "must use field names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := generate([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// A method is matched exactly before any prefix, in its own direction only:
// the same method may start one flow received and another sent.
func TestDirectionsAndPrefixes(t *testing.T) {
	src := `package flows
var table = [Count]Info{
	{ID: "a:ping", Const: "APing", Method: "ping"},
	{ID: "a:note", Const: "ANote", Method: "notes/*"},
	{ID: "a:special", Const: "ASpecial", Method: "notes/special"},
	{ID: "b:note", Const: "BNote", Method: "notes/*", Direction: FromServer},
	{ID: "b:ping", Const: "BPing", Method: "ping", Direction: FromServer},
}`
	out, err := generate([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"func methodIndex(method string) int {\n\tswitch method {\n\tcase \"ping\":\n\t\treturn 0\n\tcase \"notes/special\":\n\t\treturn 2\n\t}\n\tif strings.HasPrefix(method, \"notes/\") {\n\t\treturn 1\n\t}\n\treturn -1\n}",
		"func sentIndex(method string) int {\n\tswitch method {\n\tcase \"ping\":\n\t\treturn 4\n\t}\n\tif strings.HasPrefix(method, \"notes/\") {\n\t\treturn 3\n\t}\n\treturn -1\n}",
		"import \"strings\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated code lacks\n%s\n\ngot:\n%s", want, got)
		}
	}
}
