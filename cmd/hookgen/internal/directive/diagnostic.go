package directive

import (
	"cmp"
	"go/token"
	"slices"
)

// Severity says how serious a [Diagnostic] is.
type Severity uint8

// The severities. An Error makes hookgen fail; a Warning is printed and the
// run goes on.
const (
	Error Severity = iota
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a comment line, at a position inside the
// comment.
type Diagnostic struct {
	Pos      token.Position // the offending token; Column counts bytes
	Severity Severity
	Msg      string // lowercase, without position or severity
	// Ref, when valid, is the position of the declaration the message
	// refers to (the first of two that clash): String writes it after Msg,
	// in parentheses, then Tail. Whoever shortens Pos.Filename for printing
	// shortens Ref.Filename alike.
	Ref  token.Position
	Tail string
}

// String renders the diagnostic as "file.go:line:col: message", or
// "file.go:line:col: warning: message" for a warning, the form compilers and
// editors recognize.
func (d Diagnostic) String() string {
	msg := d.Msg
	if d.Ref.IsValid() {
		msg += " (" + d.Ref.String() + ")" + d.Tail
	}
	if d.Severity == Warning {
		return d.Pos.String() + ": warning: " + msg
	}
	return d.Pos.String() + ": " + msg
}

// at returns the position of byte off of a comment whose "//" is at pos.
func at(pos token.Position, off int) token.Position {
	pos.Offset += off
	pos.Column += off
	return pos
}

// SortDiagnostics orders diagnostics by file, line and column, keeping the
// order of those at the same position. Every part of hookgen that reports
// diagnostics sorts them with it.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
}
