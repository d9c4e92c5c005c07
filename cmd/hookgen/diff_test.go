package main

import "testing"

func TestUnified(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	b := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	tests := []struct{ name, from, to, a, b, want string }{
		{"change", "old", "new", a, b, "--- old\n+++ new\n@@ -2,9 +2,10 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n j\n+k\n"},
		{"equal", "old", "new", a, a, ""},
		{"new file", "/dev/null", "b/x", "", "x\ny\n", "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted file", "a/x", "/dev/null", "x\n", "", "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unified(tt.from, tt.to, []byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}
