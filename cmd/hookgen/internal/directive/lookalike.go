package directive

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/stages"
)

// Lookalike returns a warning when a comment line nearly is a hookgen
// directive but Go would not treat it as one, so hookgen ignores it and godoc
// shows it: a space after "//" ("// hook:beforeExecute"), an uppercase
// namespace ("//Hook:", "//HOOK:"), a space before or after the colon
// ("//mcp :tool", "//hook: beforeExecute"), a name that does not start with a
// lowercase letter or digit ("//hook:BeforeExecute"), or no name ("//hook:").
// The warning points at the first deviation and suggests the intended
// directive when one is recognizable.
//
// To keep prose quiet, a line whose name is not close to a known directive or
// stage name is reported only when namespace, colon and name are glued
// together and either the "//" is too ("//HOOK:", "//hook:Foo") or the
// namespace is lowercase ("// hook:foo"); "// Hook: called when …" is not. Lookalike returns nil
// for real directives (those are [Parse]'s), for other namespaces such as
// //go:generate or //nolint:, and for ordinary comments.
func (r *Registry) Lookalike(text string, pos token.Position) *Diagnostic {
	if !strings.HasPrefix(text, "//") {
		return nil
	}
	nsStart := skipBlank(text, 2)
	nsEnd := nsStart
	for nsEnd < len(text) && isLetter(text[nsEnd]) {
		nsEnd++
	}
	word := text[nsStart:nsEnd]
	ns := strings.ToLower(word)
	if ns != NamespaceMCP && ns != NamespaceHook {
		return nil
	}
	colon := skipBlank(text, nsEnd)
	if colon >= len(text) || text[colon] != ':' {
		return nil
	}
	nameStart := skipBlank(text, colon+1)
	name := text[nameStart:skipWord(text, nameStart)]

	var off int
	var why string
	switch {
	case nsStart > 2:
		off, why = 2, `space after "//"`
	case word != ns:
		off, why = nsStart, fmt.Sprintf("namespace %q must be lowercase", word)
	case colon > nsEnd:
		off, why = nsEnd, `space before ":"`
	case nameStart > colon+1:
		off, why = colon+1, `space after ":"`
	case name == "":
		off, why = colon, fmt.Sprintf("missing name after %q", ns+":")
	case !isLowerOrDigit(name[0]):
		off, why = nameStart, fmt.Sprintf("name %q must start with a lowercase letter or digit", name)
	default:
		return nil // a real directive
	}

	fixed, known := r.intended(ns, name)
	glued := colon == nsEnd && nameStart == colon+1
	if !known && (!glued || nsStart > 2 && word != ns) {
		return nil // probably prose, like "// Hook: called when …"
	}
	msg := "not a directive: " + why
	if fixed != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", "//"+ns+":"+fixed)
	}
	return &Diagnostic{Pos: at(pos, off), Severity: Warning, Msg: msg}
}

// intended returns the directive name a near miss probably meant, and whether
// it is a known name. An unknown name is returned with its first letter
// lowered, or "" when that would not make it a directive name.
func (r *Registry) intended(ns, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if ns == NamespaceHook {
		if st, ok := stages.Suggest(name); ok {
			return st.String(), true
		}
	} else if best, ok := suggest.Closest(name, r.mcpNames()); ok {
		return best, true
	}
	if c := name[0]; 'A' <= c && c <= 'Z' {
		return string(c+'a'-'A') + name[1:], false
	}
	if isLowerOrDigit(name[0]) {
		return name, false
	}
	return "", false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// skipBlank returns the offset of the first byte at or after i that is not a
// space or a tab.
func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
