package main

import "github.com/hookflow/hookflow/internal/suggest"

// didYouMean returns ` (did you mean "x"?)` when word is a near miss of
// one of names, and "" otherwise.
func didYouMean(word string, names []string) string {
	if s, ok := suggest.Closest(word, names); ok {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}
