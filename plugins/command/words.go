package command

import (
	"errors"
	"fmt"
	"strings"
)

// cmdWords is a command line split as a POSIX shell would split a simple
// command, without running one: leading NAME=value assignments, then the
// program and its arguments, quotes removed and the variables the hook's
// environment sets expanded. When the line holds anything only a shell
// can do (a pipeline, a list, a redirection, a substitution, a pattern,
// a builtin), shell says what, and commands names the programs the line
// starts, for the start-up check that they exist.
type cmdWords struct {
	env  []string // NAME=value, expanded
	argv []string
	// shell is "" or the first construct that needs a shell, e.g.
	// `a pipeline ("|")`.
	shell string
	// commands are the first words of the line's simple commands, as
	// written (quotes removed), when shell is set.
	commands []string
}

// maxCommandLen bounds a command line: a settings file is the operator's,
// but a line longer than this is not a hook command.
const maxCommandLen = 64 << 10

// shellBuiltins are words that, as a command, only a shell runs: keywords
// and builtins with no program of their own that behaves the same.
var shellBuiltins = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true,
	"for": true, "while": true, "until": true, "do": true, "done": true, "in": true, "select": true,
	"function": true, "time": true, "[[": true, "]]": true, "{": true, "}": true, "!": true,
	"cd": true, "export": true, "source": true, ".": true, "eval": true, "exec": true, "set": true,
	"unset": true, "alias": true, "read": true, "trap": true, "shift": true, "return": true,
	"exit": true, "ulimit": true, "umask": true, "local": true, "declare": true, "typeset": true,
	"readonly": true, "let": true, "wait": true, "command": true, "builtin": true,
}

// splitCommand splits line. lookup returns the value of a variable of the
// hook's environment; a variable it does not know needs a shell (which
// would expand it to "" or to whatever the environment holds at run time).
// The error is for a line no shell would accept either: an unclosed quote.
func splitCommand(line string, lookup func(string) (string, bool)) (cmdWords, error) {
	var w cmdWords
	if len(line) > maxCommandLen {
		return w, fmt.Errorf("is %d bytes long, more than the %d a command may have", len(line), maxCommandLen)
	}
	s := &splitter{src: line, lookup: lookup, cmdStart: true}
	if err := s.run(); err != nil {
		return w, err
	}
	w.shell, w.commands = s.shell, s.commands
	words := s.words
	i := 0
	for ; i < len(words); i++ {
		name, _, ok := strings.Cut(words[i].raw, "=")
		if !ok || !words[i].assignable || !isIdentifier(name) {
			break
		}
		w.env = append(w.env, words[i].text)
	}
	for _, wd := range words[i:] {
		w.argv = append(w.argv, wd.text)
	}
	if w.shell == "" && len(w.argv) > 0 && shellBuiltins[w.argv[0]] && !words[i].quoted {
		w.shell = fmt.Sprintf("the shell builtin %q", w.argv[0])
		w.commands = nil
	}
	if w.shell == "" && len(w.argv) == 0 && len(w.env) > 0 {
		w.shell = "only variable assignments"
	}
	return w, nil
}

// isIdentifier reports whether s is a shell variable name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

type word struct {
	text string // quotes removed, variables expanded
	raw  string // as written, for assignments
	// assignable: the part before the first '=' was written unquoted.
	assignable bool
	quoted     bool // some of it was quoted
}

type splitter struct {
	src    string
	i      int
	lookup func(string) (string, bool)

	words    []word
	cur      strings.Builder
	start    int
	inWord   bool
	quoted   bool
	eqQuoted bool // a quote came before the first '='
	sawEq    bool

	shell    string
	commands []string
	// cmdStart: the next word starts a simple command (after an operator).
	cmdStart bool
}

// needs records the first construct that needs a shell.
func (s *splitter) needs(format string, args ...any) {
	if s.shell == "" {
		s.shell = fmt.Sprintf(format, args...)
	}
}

func (s *splitter) begin() {
	if !s.inWord {
		s.inWord, s.start, s.quoted, s.eqQuoted, s.sawEq = true, s.i, false, false, false
	}
}

func (s *splitter) end() {
	if !s.inWord {
		return
	}
	w := word{text: s.cur.String(), raw: s.src[s.start:s.i], assignable: s.sawEq && !s.eqQuoted, quoted: s.quoted}
	if s.cmdStart {
		if !(w.assignable && isIdentifier(strings.SplitN(w.raw, "=", 2)[0])) {
			s.commands = append(s.commands, w.text)
			s.cmdStart = false
		}
	}
	s.words = append(s.words, w)
	s.cur.Reset()
	s.inWord = false
}

func (s *splitter) quote() {
	s.begin()
	s.quoted = true
	if !s.sawEq {
		s.eqQuoted = true
	}
}

func (s *splitter) run() error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == ' ' || c == '\t':
			s.end()
			s.i++
		case c == '\n' || c == '\r':
			s.end()
			s.needs("a list of commands (a newline)")
			s.cmdStart = true
			s.i++
		case c == '\\':
			if s.i+1 >= len(s.src) {
				return errors.New("cannot be split into words: it ends with a backslash")
			}
			if s.src[s.i+1] == '\n' {
				s.i += 2 // a line continuation
				continue
			}
			s.quote()
			s.cur.WriteByte(s.src[s.i+1])
			s.i += 2
		case c == '\'':
			s.quote()
			j := strings.IndexByte(s.src[s.i+1:], '\'')
			if j < 0 {
				return errors.New("cannot be split into words: a single quote is not closed")
			}
			s.cur.WriteString(s.src[s.i+1 : s.i+1+j])
			s.i += j + 2
		case c == '"':
			s.quote()
			s.i++
			if err := s.double(); err != nil {
				return err
			}
		case c == '$':
			s.begin()
			s.dollar(false)
		case c == '`':
			s.begin()
			s.needs("a command substitution (`…`)")
			s.cur.WriteByte(c)
			s.i++
		case strings.IndexByte("|&;<>()", c) >= 0:
			s.end()
			op := s.operator()
			s.needs("%s (%q)", opName(op), op)
			s.cmdStart = op != ">" && op != "<" && op != ">>" && op != "<<" && op != ">&" && op != "<&" && op != "&>"
		case c == '*' || c == '?' || c == '[':
			s.begin()
			s.needs("a file name pattern (%q)", string(c))
			s.cur.WriteByte(c)
			s.i++
		case c == '#' && !s.inWord:
			s.needs("a comment (#)")
			s.i = len(s.src)
		case c == '~' && !s.inWord:
			s.begin()
			s.i++
			if s.i < len(s.src) && s.src[s.i] != '/' && s.src[s.i] != ' ' && s.src[s.i] != '\t' {
				s.needs("a home directory (~user)")
				s.cur.WriteByte('~')
				continue
			}
			home, ok := s.lookup("HOME")
			if !ok {
				s.needs("a home directory (~) the hook's environment does not set")
			}
			s.cur.WriteString(home)
		case c == '{' || c == '}' || c == '!':
			s.begin()
			s.needs("%q, which a shell expands or treats as syntax", string(c))
			s.cur.WriteByte(c)
			s.i++
		case c == '=':
			s.begin()
			s.sawEq = true
			s.cur.WriteByte(c)
			s.i++
		default:
			s.begin()
			s.cur.WriteByte(c)
			s.i++
		}
	}
	s.end()
	return nil
}

// operator reads a control or redirection operator.
func (s *splitter) operator() string {
	for _, op := range []string{"&&", "||", ";;", ">>", "<<", ">&", "<&", "&>", "|&"} {
		if strings.HasPrefix(s.src[s.i:], op) {
			s.i += len(op)
			return op
		}
	}
	op := s.src[s.i : s.i+1]
	s.i++
	return op
}

func opName(op string) string {
	switch op {
	case "|", "|&":
		return "a pipeline"
	case "&&", "||", ";", ";;":
		return "a list of commands"
	case "&":
		return "a background command"
	case "(", ")":
		return "a subshell"
	}
	return "a redirection"
}

// double reads a double-quoted part, after its opening quote.
func (s *splitter) double() error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch c {
		case '"':
			s.i++
			return nil
		case '\\':
			if s.i+1 < len(s.src) && strings.IndexByte("$`\"\\\n", s.src[s.i+1]) >= 0 {
				if s.src[s.i+1] != '\n' {
					s.cur.WriteByte(s.src[s.i+1])
				}
				s.i += 2
				continue
			}
			s.cur.WriteByte(c)
			s.i++
		case '$':
			s.dollar(true)
		case '`':
			s.needs("a command substitution (`…`)")
			s.cur.WriteByte(c)
			s.i++
		default:
			s.cur.WriteByte(c)
			s.i++
		}
	}
	return errors.New("cannot be split into words: a double quote is not closed")
}

// dollar reads a $ expansion: $NAME and ${NAME} of a variable the hook's
// environment sets are expanded; anything else needs a shell.
func (s *splitter) dollar(quoted bool) {
	rest := s.src[s.i+1:]
	name, n := "", 0
	switch {
	case strings.HasPrefix(rest, "("):
		s.needs("a command substitution ($(…))")
	case strings.HasPrefix(rest, "{"):
		end := strings.IndexByte(rest, '}')
		if end > 0 && isIdentifier(rest[1:end]) {
			name, n = rest[1:end], end+1
		} else {
			s.needs("a parameter expansion (%q)", excerpt("$"+rest))
		}
	default:
		for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || n > 0 && rest[n] >= '0' && rest[n] <= '9') {
			n++
		}
		name = rest[:n]
		if n == 0 {
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' || (quoted && rest[0] == '"') {
				s.cur.WriteByte('$') // a lone $ is itself
				s.i++
				return
			}
			s.needs("a special parameter (%q)", excerpt("$"+rest))
		}
	}
	if name != "" {
		if v, ok := s.lookup(name); ok {
			s.cur.WriteString(v)
			s.i += 1 + n
			return
		}
		s.needs("the variable $%s, which the hook's environment does not set", name)
	}
	s.cur.WriteByte('$')
	s.i++
}
