package filter

import (
	"fmt"
	"path"
	"strings"
)

// Pattern checks a tool name or glob of an upstream's AllowTools or
// DenyTools (allow_tools, deny_tools).
func Pattern(p string) error {
	if p == "" {
		return fmt.Errorf("want a tool name or a glob such as read_*, got \"\"")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("%q is not a glob (* any characters, ? one, [a-z] a class): %v", p, err)
	}
	return nil
}

// ResourcePrefix checks that prefix, put before a URI's scheme,
// leaves a scheme (RFC 3986: a letter, then letters, digits, "+", "-" or
// ".") and tells it from the scheme: it ends with "+", "-" or ".".
func ResourcePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	ok := prefix[0] >= 'a' && prefix[0] <= 'z' || prefix[0] >= 'A' && prefix[0] <= 'Z'
	for i := 1; ok && i < len(prefix); i++ {
		b := prefix[i]
		ok = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '-' || b == '.'
	}
	if !ok || !strings.ContainsAny(prefix[len(prefix)-1:], "+-.") {
		return fmt.Errorf("want the start of a URI scheme such as files+ (a letter, then letters, digits, +, - or ., ending with +, - or .), got %q", prefix)
	}
	return nil
}
