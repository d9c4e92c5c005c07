package sandbox

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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

// parseShell parses line as bash does, comments kept.
func parseShell(line string) (*syntax.File, error) {
	return syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).
		Parse(strings.NewReader(line), "")
}

// splitCommand splits line. lookup returns the value of a variable of the
// hook's environment; a variable it does not know needs a shell (which
// would expand it to "" or to whatever the environment holds at run time).
// The error is for a line no shell would accept either, such as one with
// an unclosed quote.
func splitCommand(line string, lookup func(string) (string, bool)) (cmdWords, error) {
	var w cmdWords
	if len(line) > maxCommandLen {
		return w, fmt.Errorf("is %d bytes long, more than the %d a command may have", len(line), maxCommandLen)
	}
	f, err := parseShell(line)
	if err != nil {
		return w, fmt.Errorf("cannot be split into words: %v", err)
	}
	sn := &sniffer{src: line, lookup: lookup, at: -1}
	syntax.Walk(f, sn.visit)
	sn.lists(f.Stmts)
	home, hasHome := lookup("HOME")
	expand := func(pe *syntax.ParamExp) string {
		if pe.Param == nil {
			return ""
		}
		v, _ := lookup(pe.Param.Value)
		return v
	}
	word := func(wd *syntax.Word) string { return unquote(line, wd, expand, home) }
	w.shell = sn.shell
	for _, c := range sn.calls {
		if len(c.Args) > 0 {
			w.commands = append(w.commands, word(c.Args[0]))
		}
	}
	if w.shell != "" || len(sn.calls) == 0 {
		return w, nil
	}
	w.commands = nil
	call := sn.calls[0]
	for _, a := range call.Assigns {
		w.env = append(w.env, a.Name.Value+"="+word(a.Value))
	}
	for _, a := range call.Args {
		w.argv = append(w.argv, word(a))
	}
	switch {
	case len(w.argv) > 0 && shellBuiltins[w.argv[0]] && isPlain(call.Args[0]):
		w.shell = fmt.Sprintf("the shell builtin %q", w.argv[0])
	case len(w.argv) == 0:
		w.shell = "only variable assignments"
	case !hasHome && startsWithTilde(call):
		w.shell = "a home directory (~) the hook's environment does not set"
	}
	return w, nil
}

// isPlain reports whether wd is written without quotes or escapes.
func isPlain(wd *syntax.Word) bool {
	l, ok := wd.Parts[0].(*syntax.Lit)
	return ok && len(wd.Parts) == 1 && !strings.Contains(l.Value, `\`)
}

// startsWithTilde reports whether a word of call starts with ~, which
// expands to $HOME.
func startsWithTilde(call *syntax.CallExpr) bool {
	for _, wd := range call.Args {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
			return true
		}
	}
	return false
}

// sniffer walks a parsed line for what needs a shell, keeping the first
// such construct in the line's order, and collects its simple commands.
type sniffer struct {
	src    string
	lookup func(string) (string, bool)
	calls  []*syntax.CallExpr
	shell  string
	at     int // offset of shell's construct, -1 for none
}

// needs records a construct that needs a shell at pos.
func (s *sniffer) needs(pos syntax.Pos, format string, args ...any) {
	if off := int(pos.Offset()); s.at < 0 || off < s.at {
		s.at, s.shell = off, fmt.Sprintf(format, args...)
	}
}

// lists records the lists of stmts: more than one command, or one run
// in the background.
func (s *sniffer) lists(stmts []*syntax.Stmt) {
	for i, st := range stmts {
		switch {
		case st.Background:
			s.needs(st.Semicolon, "a background command (%q)", "&")
		case st.Semicolon.IsValid():
			s.needs(st.Semicolon, "a list of commands (%q)", ";")
		case i+1 < len(stmts):
			s.needs(st.End(), "a list of commands (a newline)")
		}
	}
}

func (s *sniffer) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		if n.Negated {
			s.needs(n.Pos(), "%q, which a shell expands or treats as syntax", "!")
		}
	case *syntax.Comment:
		s.needs(n.Pos(), "a comment (#)")
	case *syntax.CallExpr:
		s.calls = append(s.calls, n)
		for _, a := range n.Assigns {
			if a.Append || a.Naked || a.Index != nil || a.Array != nil {
				s.needs(a.Pos(), "an assignment only a shell reads (%q)", excerpt(s.text(a)))
			}
		}
	case *syntax.BinaryCmd:
		name := "a list of commands"
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			name = "a pipeline"
		}
		s.needs(n.OpPos, "%s (%q)", name, n.Op.String())
	case *syntax.Redirect:
		s.needs(n.Pos(), "a redirection (%q)", n.Op.String())
	case *syntax.Subshell:
		s.needs(n.Pos(), "a subshell (%q)", "(")
	case *syntax.Block:
		s.needs(n.Pos(), "%q, which a shell expands or treats as syntax", "{")
	case *syntax.CmdSubst:
		if n.Backquotes {
			s.needs(n.Pos(), "a command substitution (`…`)")
		} else {
			s.needs(n.Pos(), "a command substitution ($(…))")
		}
	case *syntax.ParamExp:
		s.param(n)
	case *syntax.Word:
		s.word(n)
	case *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
		s.needs(n.Pos(), "an expansion (%q)", excerpt(s.text(n)))
	case *syntax.SglQuoted:
		if n.Dollar {
			s.needs(n.Pos(), "a quote with escapes (%q)", excerpt(s.text(n)))
		}
	case *syntax.DblQuoted:
		if n.Dollar {
			s.needs(n.Pos(), "a translated quote (%q)", excerpt(s.text(n)))
		}
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl,
		*syntax.ArithmCmd, *syntax.TestClause, *syntax.DeclClause, *syntax.LetClause, *syntax.TimeClause,
		*syntax.CoprocClause, *syntax.TestDecl:
		keyword, _, _ := strings.Cut(s.text(n), " ")
		s.needs(n.Pos(), "the shell builtin %q", excerpt(keyword))
	}
	return true
}

// param records a parameter expansion that needs a shell: one that is
// not $NAME or ${NAME} of a variable the hook's environment sets.
func (s *sniffer) param(pe *syntax.ParamExp) {
	switch {
	case pe.Exp != nil || pe.Repl != nil || pe.Index != nil || pe.Slice != nil || pe.Length || pe.Excl ||
		pe.Width || pe.Names != 0 || pe.IsSet || pe.NestedParam != nil:
		s.needs(pe.Pos(), "a parameter expansion (%q)", excerpt(s.src[pe.Pos().Offset():]))
	case pe.Param == nil || !syntax.ValidName(pe.Param.Value):
		s.needs(pe.Pos(), "a special parameter (%q)", excerpt(s.src[pe.Pos().Offset():]))
	default:
		if _, ok := s.lookup(pe.Param.Value); !ok {
			s.needs(pe.Pos(), "the variable $%s, which the hook's environment does not set", pe.Param.Value)
		}
	}
}

// word records the unquoted characters of a word that a shell expands:
// patterns, braces and history, and ~user.
func (s *sniffer) word(wd *syntax.Word) {
	for i, part := range wd.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		if i == 0 && strings.HasPrefix(l.Value, "~") && len(l.Value) > 1 && l.Value[1] != '/' {
			s.needs(l.Pos(), "a home directory (~user)")
		}
		if at, c := unescapedAny(l.Value, "*?["); at >= 0 {
			s.needs(syntax.NewPos(l.Pos().Offset()+uint(at), 0, 0), "a file name pattern (%q)", string(c))
		}
		if at, c := unescapedAny(l.Value, "{}!"); at >= 0 {
			s.needs(syntax.NewPos(l.Pos().Offset()+uint(at), 0, 0), "%q, which a shell expands or treats as syntax", string(c))
		}
	}
}

// text is n's source.
func (s *sniffer) text(n syntax.Node) string { return s.src[n.Pos().Offset():n.End().Offset()] }

// unescapedAny returns the offset in a literal and the byte of the first
// of chars that no backslash escapes, or -1.
func unescapedAny(lit, chars string) (int, byte) {
	for i := 0; i < len(lit); i++ {
		switch {
		case lit[i] == '\\':
			i++
		case strings.IndexByte(chars, lit[i]) >= 0:
			return i, lit[i]
		}
	}
	return -1, 0
}

// unquote returns a parsed word's text with its quotes and escapes
// removed: param gives a $NAME or ${NAME}'s text, and a leading ~ is
// home; any other expansion stays as written.
func unquote(src string, wd *syntax.Word, param func(*syntax.ParamExp) string, home string) string {
	var b strings.Builder
	for i, part := range wd.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
				b.WriteString(home)
				v = v[1:]
			}
			unescape(&b, v, "")
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(src[p.Pos().Offset():p.End().Offset()])
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				if l, ok := in.(*syntax.Lit); ok {
					unescape(&b, l.Value, "$`\"\\\n")
				} else if pe, ok := in.(*syntax.ParamExp); ok && param != nil {
					b.WriteString(param(pe))
				} else {
					b.WriteString(src[in.Pos().Offset():in.End().Offset()])
				}
			}
		case *syntax.ParamExp:
			if param != nil {
				b.WriteString(param(p))
				continue
			}
			b.WriteString(src[p.Pos().Offset():p.End().Offset()])
		default:
			b.WriteString(src[part.Pos().Offset():part.End().Offset()])
		}
	}
	return b.String()
}

// unescape writes lit without the backslashes that escape a byte of
// only ("" for any byte, as outside quotes).
func unescape(b *strings.Builder, lit, only string) {
	for i := 0; i < len(lit); i++ {
		if lit[i] == '\\' && i+1 < len(lit) && (only == "" || strings.IndexByte(only, lit[i+1]) >= 0) {
			i++
		}
		b.WriteByte(lit[i])
	}
}

// Unquote returns the text of wd, a word of the line src, with its quotes
// and escapes removed and its expansions as written: what a rule that
// reads a command line without running it compares.
func Unquote(src string, wd *syntax.Word) string { return unquote(src, wd, nil, "") }
