package guidancekinds_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/guidancekinds"
)

// Names parse back to their values, and the tag rule bounds a tag to 64
// safe bytes.
func TestVocabulary(t *testing.T) {
	if l, err := guidancekinds.ParseLevel("MUST-NOT"); l != guidancekinds.MustNot || err != nil {
		t.Errorf("ParseLevel(MUST-NOT) = %v, %v", l, err)
	}
	if l, err := guidancekinds.ParseLifecycle("end"); l != guidancekinds.End || err != nil {
		t.Errorf("ParseLifecycle(end) = %v, %v", l, err)
	}
	if _, err := guidancekinds.ParseFeature("sampeling"); err == nil || !strings.Contains(err.Error(), `did you mean "sampling"`) {
		t.Errorf("ParseFeature(sampeling): %v", err)
	}
	tests := []struct {
		tag string
		ok  bool
	}{
		{"weather.tips_2", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"-x", false},
		{"a/b", false},
	}
	for _, tt := range tests {
		if err := guidancekinds.CheckTag(tt.tag); (err == nil) != tt.ok {
			t.Errorf("CheckTag(%q) = %v", tt.tag, err)
		}
	}
}
