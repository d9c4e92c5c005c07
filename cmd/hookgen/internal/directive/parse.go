package directive

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// The namespaces hookflow owns. A comment in any other namespace is not
// hookgen's.
const (
	NamespaceMCP  = "mcp"
	NamespaceHook = "hook"
)

// Directive is one directive line split into its name and arguments, before
// validation against the [Registry]. Every part carries its position, so later
// stages can report errors on it.
type Directive struct {
	Text      string         // the comment text, starting with "//"
	Pos       token.Position // the "//"
	Namespace string         // NamespaceMCP or NamespaceHook
	Name      string         // the name after the colon, e.g. "tool" or "beforeExecute"
	NamePos   token.Position // the first byte of Name
	Args      []Arg          // the arguments in source order, duplicates included

	syntaxErr bool // Parse reported an error; Decode then returns no value
}

// Arg is one argument of a [Directive]: key=value or a lone flag word.
type Arg struct {
	Key      string
	Value    string         // the value, unquoted; "" for a flag
	HasValue bool           // written as key=value (possibly with an empty value)
	Quoted   bool           // the value was a Go-quoted string
	Bad      bool           // the value is malformed and Parse reported it; Decode skips it
	Pos      token.Position // the key
	ValuePos token.Position // the value's first byte (its quote when quoted), or the "=" when the value is empty; zero without a value
}

// Head returns the directive as written up to its name, e.g.
// "//hook:beforeExecute".
func (d *Directive) Head() string { return "//" + d.Namespace + ":" + d.Name }

// Arg returns the first argument with the given key.
func (d *Directive) Arg(key string) (Arg, bool) {
	for _, a := range d.Args {
		if a.Key == key {
			return a, true
		}
	}
	return Arg{}, false
}

// Parse splits one comment line into a [Directive]. text is the comment's text
// starting with "//" (as in go/ast.Comment.Text) and pos the position of its
// "//". Parse returns nil, nil when the line is not a directive in a namespace
// hookflow owns, including near misses that Go does not treat as directives;
// [Registry.Lookalike] reports those. Otherwise it returns the directive and
// every syntax error of the line: a stray or unterminated quote, a bad escape,
// text glued to a quoted value, a value without a key. Parse knows no
// directive names or keys; [Registry.Decode] checks them.
//
// The line is expected to hold no newline; a newline is treated as a space,
// and ends (as unterminated) a quoted string.
func Parse(text string, pos token.Position) (*Directive, []Diagnostic) {
	ns, nameStart := namespaceOf(text)
	if ns == "" || nameStart >= len(text) || !isLowerOrDigit(text[nameStart]) {
		return nil, nil
	}
	nameEnd := skipWord(text, nameStart)
	d := &Directive{
		Text:      text,
		Pos:       pos,
		Namespace: ns,
		Name:      text[nameStart:nameEnd],
		NamePos:   at(pos, nameStart),
	}
	p := lexer{text: text, pos: pos}
	d.Args = p.args(nameEnd)
	d.syntaxErr = len(p.diags) > 0
	return d, p.diags
}

// namespaceOf returns the namespace of a line that starts with "//mcp:" or
// "//hook:", and the offset just after the colon; "" otherwise.
func namespaceOf(text string) (string, int) {
	for _, ns := range [...]string{NamespaceMCP, NamespaceHook} {
		if len(text) > 2+len(ns) && text[:2] == "//" && text[2:2+len(ns)] == ns && text[2+len(ns)] == ':' {
			return ns, 3 + len(ns)
		}
	}
	return "", 0
}

// lexer splits the arguments of a directive line and collects syntax errors.
type lexer struct {
	text  string
	pos   token.Position
	diags []Diagnostic
}

func (p *lexer) errorf(off int, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{Pos: at(p.pos, off), Severity: Error, Msg: fmt.Sprintf(format, args...)})
}

// args lexes the arguments that start at offset i.
func (p *lexer) args(i int) []Arg {
	text := p.text
	var out []Arg
	for {
		i = skipSpace(text, i)
		if i >= len(text) {
			return out
		}
		start := i
		if isQuote(text[i]) {
			end, ok := p.quotedEnd(i)
			if !ok {
				return out
			}
			p.errorf(start, "quoted value without a key")
			i = skipWord(text, end)
			continue
		}
		for i < len(text) && !isSpace(text[i]) && text[i] != '=' {
			i++
		}
		key := text[start:i]
		if i >= len(text) || text[i] != '=' {
			out = append(out, Arg{Key: key, Pos: at(p.pos, start)})
			continue
		}
		eq := i
		if key == "" {
			p.errorf(eq, `missing key before "="`)
		}
		a := Arg{Key: key, HasValue: true, Pos: at(p.pos, start), ValuePos: at(p.pos, eq+1)}
		i = eq + 1
		switch {
		case i >= len(text) || isSpace(text[i]):
			a.ValuePos = at(p.pos, eq)
		case isQuote(text[i]):
			end, ok := p.quotedEnd(i)
			if !ok {
				a.Bad = true
				if key != "" {
					out = append(out, a)
				}
				return out
			}
			a.Quoted = true
			a.Value, a.Bad = p.unquote(i, end)
			if end < len(text) && !isSpace(text[end]) {
				stop := skipWord(text, end)
				p.errorf(end, "unexpected %q after quoted value", text[end:stop])
				a.Bad = true
				end = stop
			}
			i = end
		default:
			stop := skipWord(text, i)
			a.Value = text[i:stop]
			if q := strings.IndexAny(a.Value, "\"`"); q >= 0 {
				p.errorf(i+q, "quote inside unquoted value of key %q (quote the whole value)", key)
				a.Bad = true
			}
			i = stop
		}
		if key != "" {
			out = append(out, a)
		}
	}
}

// quotedEnd returns the offset just after the quoted string that starts at
// offset i, or reports it unterminated.
func (p *lexer) quotedEnd(i int) (int, bool) {
	text, q := p.text, p.text[i]
	for j := i + 1; j < len(text); j++ {
		switch c := text[j]; {
		case c == '\n':
			j = len(text)
		case c == q:
			return j + 1, true
		case c == '\\' && q == '"':
			j++
		}
	}
	p.errorf(i, "unterminated quoted string")
	return 0, false
}

// unquote decodes the quoted string text[i:end], reporting a bad escape at
// its backslash. It returns the value and whether it is bad.
func (p *lexer) unquote(i, end int) (string, bool) {
	lit := p.text[i:end]
	if v, err := strconv.Unquote(lit); err == nil {
		return v, false
	}
	off := i
	if lit[0] == '"' {
		s := lit[1 : len(lit)-1]
		off++
		for len(s) > 0 {
			_, _, tail, err := strconv.UnquoteChar(s, '"')
			if err != nil {
				break
			}
			off += len(s) - len(tail)
			s = tail
		}
	}
	p.errorf(off, "invalid escape sequence in quoted value")
	return "", true
}

// isSpace reports whether c separates arguments.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isQuote(c byte) bool { return c == '"' || c == '`' }

func isLowerOrDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// skipSpace returns the offset of the first non-space byte at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// skipWord returns the offset of the first space byte at or after i.
func skipWord(s string, i int) int {
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return i
}
