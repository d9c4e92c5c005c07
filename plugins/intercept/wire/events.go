package wire

import "strings"

// Wildcard is the event that matches every lifecycle event of the phase
// its hook names.
const Wildcard = "*"

// Match reports whether the event pattern of a hook matches event: equal
// names, the wildcard "*", or a namespace wildcard such as "tools/*", which
// matches the events of that namespace ("tools/call", "tools/list"). The
// SEP defines "*"; it allows namespace wildcards, and hookflow supports the
// trailing "/*" form only.
func Match(pattern, event string) bool {
	if pattern == event || pattern == Wildcard {
		return true
	}
	ns, ok := strings.CutSuffix(pattern, "/*")
	return ok && ns != "" && strings.HasPrefix(event, ns+"/")
}

// MatchAny reports whether any of patterns matches event.
func MatchAny(patterns []string, event string) bool {
	for _, p := range patterns {
		if Match(p, event) {
			return true
		}
	}
	return false
}

// IsPattern reports whether s is a wildcard rather than one event name: the
// SEP refuses patterns where it wants a concrete event (the event filter of
// interceptors/list).
func IsPattern(s string) bool {
	return s == Wildcard || strings.HasSuffix(s, "/*")
}
