package filter

import (
	"fmt"
	"slices"

	"github.com/bmatcuk/doublestar/v4"
)

// Glob checks a pattern of a selector: a name, URI or glob in doublestar
// syntax (* within a path segment, ** across segments).
func Glob(p string) error {
	if p == "" {
		return fmt.Errorf("want a name, a URI or a glob such as read_* or file:///docs/**, got \"\"")
	}
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("%q is not a glob (* any characters within a segment, ** across segments, ? one, [a-z] a class, {a,b} either): unbalanced brackets or braces, or a trailing backslash", p)
	}
	return nil
}

// Hints are the names of the tool annotations' hints, in the protocol's
// spelling.
func Hints() []string {
	return []string{"destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"}
}

// CheckHints checks the names of a map of tool hints.
func CheckHints(m map[string]bool) error {
	names := Hints()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(names, k) {
			return fmt.Errorf("%q is not a tool hint (want one of %v)", k, names)
		}
	}
	return nil
}

// ToolName checks a name a tool is renamed to: 1 to 128 letters, digits,
// "_", "-" and ".", the names the protocol recommends.
func ToolName(name string) error {
	ok := len(name) >= 1 && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		b := name[i]
		ok = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
	}
	if !ok {
		return fmt.Errorf("want 1 to 128 letters, digits, _, - or ., got %q", name)
	}
	return nil
}
