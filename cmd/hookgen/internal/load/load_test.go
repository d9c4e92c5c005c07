package load

import (
	"go/token"
	"testing"
)

func TestMentions(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"package a\n//hook:beforeExecute\nfunc F() {}\n", true},
		{"package a\n\t//mcp:tool name=x\n", true},
		{"package a\n// hook:beforeExecute\n", true},
		{"package a\n//Hook : x\n", true},
		{"package a\n//HOOK:\n", true},
		{"//mcp:tool", true},
		{"package a\n// mcp tool\n", false},
		{"package a\n// hooks: none\n", false},
		{"package a\nvar x = 1 //hook:beforeExecute\n", false},
		{"package a\n// see //mcp:tool\n", false},
		{"package a\n//\t//mcp:tool name=x\n", false},
		{"package a\n//go:generate go tool hookgen\n", false},
		{"package a\n// hookgen: not a directive\n", false},
		{"", false},
		{"//", false},
	}
	for _, tt := range tests {
		if got := Mentions([]byte(tt.src)); got != tt.want {
			t.Errorf("Mentions(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		in   string
		want token.Position
		ok   bool
	}{
		{"/a/b.go:12:5", token.Position{Filename: "/a/b.go", Line: 12, Column: 5}, true},
		{"/a/b.go:12", token.Position{Filename: "/a/b.go", Line: 12}, true},
		{"", token.Position{}, false},
		{"-", token.Position{}, false},
	}
	for _, tt := range tests {
		got, ok := Position(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("Position(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBuildFlags(t *testing.T) {
	if got := BuildFlags(nil); len(got) != 1 || got[0] != "-tags=hookgen" {
		t.Errorf("BuildFlags(nil) = %q", got)
	}
	if got := BuildFlags([]string{"a", "b"}); len(got) != 1 || got[0] != "-tags=a,b,hookgen" {
		t.Errorf("BuildFlags(a,b) = %q", got)
	}
}
