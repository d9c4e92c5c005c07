package suggest

import (
	"fmt"
	"strings"
)

// Closest returns the candidate nearest to word by case-insensitive edit
// distance, when it is close enough to be a typo: at most 1 + len(word)/4
// edits. It returns "", false when nothing is that close.
func Closest(word string, candidates []string) (string, bool) {
	w := strings.ToLower(word)
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(w, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= 1+len(word)/4 {
		return best, true
	}
	return "", false
}

// Unknown returns the error for s, which is none of names, the names of
// what (a singular noun, plural its plural): it names the closest name
// when s is a likely typo of it (see Closest), else all of them.
func Unknown(what, plural, s string, names []string) error {
	if best, ok := Closest(s, names); ok {
		return fmt.Errorf("unknown %s %q (did you mean %q?)", what, s, best)
	}
	return fmt.Errorf("unknown %s %q (%s: %s)", what, s, plural, strings.Join(names, ", "))
}

// Distance returns the Levenshtein edit distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
