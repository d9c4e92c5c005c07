package directive

import (
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// The value checks of the default registry. Each returns a lowercase reason
// that Decode appends to `invalid value "…" for key "…": `.

// CheckToolName enforces the MCP tool-name rule (SEP-986):
// ^[A-Za-z0-9_./-]{1,64}$.
func CheckToolName(s string) error {
	switch {
	case s == "":
		return errors.New("must not be empty")
	case len(s) > 64:
		return errors.New("longer than 64 characters")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-') {
			return errors.New("want only A-Z a-z 0-9 _ - . /")
		}
	}
	return nil
}

// CheckNonEmpty refuses an empty value.
func CheckNonEmpty(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// checkScope accepts an OAuth scope token (RFC 6749 §3.3): printable ASCII
// other than space, '"' and '\'.
func checkScope(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return errors.New(`want printable ASCII without spaces, '"' or '\'`)
		}
	}
	return nil
}

// checkMIME accepts a media type such as text/plain, with optional parameters.
func checkMIME(s string) error {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil || !strings.Contains(mt, "/") {
		return errors.New("not a media type (want e.g. text/plain)")
	}
	return nil
}

// checkURI accepts an absolute URI: a scheme (RFC 3986 §3.1) and no spaces or
// control characters.
func checkURI(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return errors.New("missing scheme (want e.g. file:///path)")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return errors.New("contains a space or control character")
		}
	}
	return nil
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// checkResourceURI accepts a fixed resource URI: a template belongs in
// //mcp:resource-template.
func checkResourceURI(s string) error {
	if err := checkURI(s); err != nil {
		return err
	}
	if strings.ContainsAny(s, "{}") {
		return errors.New(`contains "{" or "}": a URI template belongs in //mcp:resource-template`)
	}
	return nil
}

// checkURITemplate accepts an RFC 6570 URI template with at least one
// expression; expressions are not nested and not empty.
func checkURITemplate(s string) error {
	if err := checkURI(s); err != nil {
		return err
	}
	n, open := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if open >= 0 {
				return errors.New(`nested "{"`)
			}
			open = i
		case '}':
			switch {
			case open < 0:
				return errors.New(`"}" without "{"`)
			case open == i-1:
				return errors.New(`empty "{}"`)
			}
			open = -1
			n++
		}
	}
	switch {
	case open >= 0:
		return errors.New(`unclosed "{"`)
	case n == 0:
		return errors.New("no {variable}: a fixed URI belongs in //mcp:resource")
	}
	return nil
}

// checkPromptArg accepts a prompt argument: a word of A-Z a-z 0-9 _ . -,
// optionally followed by "?" (optional argument).
func checkPromptArg(s string) error {
	if !isWord(promptArgName(s)) {
		return errors.New("want a word of A-Z a-z 0-9 _ . -, optionally followed by ?")
	}
	return nil
}

// promptArgName returns a prompt argument's name: the element without its
// optional "?".
func promptArgName(s string) string { return strings.TrimSuffix(s, "?") }

// checkIdent accepts a Go identifier (letters, digits and underscores, not
// starting with a digit).
func checkIdent(s string) error {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return errors.New("want a Go identifier")
		}
	}
	return nil
}

// checkFailurePolicy accepts the failure policies of package flows: closed
// or open.
func checkFailurePolicy(s string) error {
	if _, err := flows.ParseFailurePolicy(s); err == nil {
		return nil
	}
	msg := "want closed or open"
	if near, ok := suggest.Closest(s, []string{"closed", "open"}); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg)
}
