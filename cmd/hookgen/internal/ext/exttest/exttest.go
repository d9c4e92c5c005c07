package exttest

import (
	"go/token"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
)

// Pos is the position the tests parse a directive comment at.
var Pos = token.Position{Filename: "file.go", Offset: 100, Line: 7, Column: 1}

// Render returns each diagnostic of ds as its text.
func Render(ds []directive.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// Registry returns the core's directives and those of extension e; a
// registry that cannot be built fails t.
func Registry(t testing.TB, e ext.Extension) *directive.Registry {
	t.Helper()
	r, err := directive.New(e.Directives()...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
