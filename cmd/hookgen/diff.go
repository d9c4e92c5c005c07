package main

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// unified returns the unified diff, with three lines of context, that
// turns a (the file named from) into b (named to); "" when they are equal.
// A generated file always ends in a newline, so the diff never needs to
// mark a last line without one.
func unified(from, to string, a, b []byte) string {
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(a), B: lines(b), FromFile: from, ToFile: to, Context: 3,
	})
	return d
}

// lines splits s into lines that keep their "\n"; an empty s has none.
// (difflib.SplitLines would add an empty last line.)
func lines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	out := strings.SplitAfter(string(s), "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += "\n"
	return out
}
