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
var table = [Count]Info{{ID: "a:b", Const: "AB", Method: "a/b"}, {ID: "a:c", Const: "AC", Method: "a/b"}}`, "duplicate method a/b"},
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
