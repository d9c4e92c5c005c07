package gen

import (
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// TestConstNames checks that every flow and stage the runtime knows has a
// constant name in the generated code (the golden tests compile them).
func TestConstNames(t *testing.T) {
	for _, f := range flows.All() {
		if FlowConst(f.ID) == "" {
			t.Errorf("flow %s has no constant name", f.ID)
		}
	}
	want := map[stages.Stage]string{
		stages.BeforeValidation: "BeforeValidation", stages.AfterValidation: "AfterValidation",
		stages.BeforeExecute: "BeforeExecute", stages.AfterExecute: "AfterExecute",
		stages.OnError: "OnError", stages.Finally: "Finally",
	}
	for _, s := range stages.All() {
		if got := StageConst(s); got != want[s] {
			t.Errorf("StageConst(%s) = %q, want %q", s, got, want[s])
		}
	}
}

func TestIsGenerated(t *testing.T) {
	for src, want := range map[string]bool{
		Header + "\n\n" + BuildLine + "\n\npackage a\n": true,
		Header:                true,
		"package a\n":         false,
		"// " + Header + "\n": false,
		Header + " more\n":    false,
	} {
		if got := IsGenerated([]byte(src)); got != want {
			t.Errorf("IsGenerated(%q) = %v, want %v", src, got, want)
		}
	}
}
