package suggest_test

import (
	"testing"

	"github.com/hookflow/hookflow/internal/suggest"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"finaly", "finally", 1},
		{"onErorr", "onError", 2},
		{"Finally", "finally", 1}, // case matters to Distance; Closest lowers case first
	}
	for _, tt := range tests {
		if got := suggest.Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := suggest.Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	candidates := []string{"beforeValidation", "afterValidation", "beforeExecute", "afterExecute", "onError", "finally"}
	tests := []struct {
		word   string
		want   string
		wantOK bool
	}{
		{"FINALLY", "finally", true}, // case only: distance 0
		{"finaly", "finally", true},  // 1 edit, limit 1+6/4 = 2
		{"onErorr", "onError", true}, // 2 edits, limit 1+7/4 = 2
		{"beforeExecut", "beforeExecute", true},
		{"fin", "", false}, // 4 edits, limit 1
		{"", "", false},
		{"somethingelse", "", false},
	}
	for _, tt := range tests {
		got, ok := suggest.Closest(tt.word, candidates)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.wantOK)
		}
	}
	if got, ok := suggest.Closest("x", nil); ok || got != "" {
		t.Errorf("Closest with no candidates = %q, %v", got, ok)
	}
}
