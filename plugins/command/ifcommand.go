package command

import (
	"slices"
	"strings"
)

// maxIfInput bounds what an "if" rule reads of a call: a command or a
// path longer than this is not read, and the hook runs.
const maxIfInput = 64 << 10

// subcommand is one simple command of a command line, for an "if" rule.
type subcommand struct {
	src   string // the line, for the raw text of words
	words []cmdWord
	end   int // offset in src after its last word
}

type cmdWord struct {
	text       string // quotes and escapes removed
	start, end int    // the word as written: src[start:end]
	// redir marks a redirection operator and its target (2>&1, > out).
	redir bool
	// assign: NAME=value, with the name unquoted.
	assign bool
}

// subcommands splits a command line, without running it, into the simple
// commands Claude Code matches a Bash rule against: split at &&, ||, ;,
// |, |&, &, newlines and parentheses, outside quotes. ok is false when the
// line holds what this reading cannot follow (a command substitution, a
// here-document, an unclosed quote): the rule then runs the hook.
func subcommands(line string) (cmds []subcommand, ok bool) {
	if len(line) > maxIfInput {
		return nil, false
	}
	s := &cmdScanner{src: line}
	if !s.run() {
		return nil, false
	}
	return s.cmds, true
}

type cmdScanner struct {
	src  string
	i    int
	cmds []subcommand
	cur  subcommand

	word    strings.Builder
	inWord  bool
	start   int
	quoted  bool // a quote came before the word's first '='
	sawEq   bool
	redirTo bool // the next word is a redirection's target
}

func (s *cmdScanner) begin() {
	if !s.inWord {
		s.inWord, s.start, s.quoted, s.sawEq = true, s.i, false, false
	}
}

func (s *cmdScanner) endWord() {
	if !s.inWord {
		return
	}
	w := cmdWord{text: s.word.String(), start: s.start, end: s.i}
	if s.redirTo {
		w.redir, s.redirTo = true, false
	}
	if name, _, ok := strings.Cut(s.src[s.start:s.i], "="); ok && !s.quoted && isIdentifier(name) {
		w.assign = true
	}
	s.cur.words = append(s.cur.words, w)
	s.cur.end = s.i
	s.word.Reset()
	s.inWord = false
}

func (s *cmdScanner) endCommand() {
	s.endWord()
	if len(s.cur.words) > 0 {
		s.cur.src = s.src
		s.cmds = append(s.cmds, s.cur)
	}
	s.cur, s.redirTo = subcommand{}, false
}

// redirect records a redirection operator of n bytes at s.i; a word of
// digits just before it (2>) is its file descriptor.
func (s *cmdScanner) redirect(n int) {
	if s.inWord && s.i > s.start && strings.Trim(s.src[s.start:s.i], "0123456789") == "" {
		s.redirTo = true // the descriptor is part of the redirection
	}
	s.endWord()
	s.cur.words = append(s.cur.words, cmdWord{text: s.src[s.i : s.i+n], start: s.i, end: s.i + n, redir: true})
	s.i += n
	s.cur.end = s.i
	s.redirTo = true
}

func (s *cmdScanner) run() bool {
	for s.i < len(s.src) {
		c, rest := s.src[s.i], s.src[s.i:]
		switch {
		case c == ' ' || c == '\t':
			s.endWord()
			s.i++
		case c == '\n' || c == '\r':
			s.endCommand()
			s.i++
		case c == '\\':
			if s.i+1 >= len(s.src) {
				return false
			}
			if s.src[s.i+1] == '\n' {
				s.endWord() // a line continuation
				s.i += 2
				continue
			}
			s.begin()
			s.quote()
			s.word.WriteByte(s.src[s.i+1])
			s.i += 2
		case c == '\'':
			s.begin()
			s.quote()
			j := strings.IndexByte(rest[1:], '\'')
			if j < 0 {
				return false
			}
			s.word.WriteString(rest[1 : 1+j])
			s.i += j + 2
		case c == '"':
			s.begin()
			s.quote()
			s.i++
			if !s.double() {
				return false
			}
		case c == '`', strings.HasPrefix(rest, "$("), strings.HasPrefix(rest, "<("), strings.HasPrefix(rest, ">("):
			return false // a command the line runs inside a word
		case strings.HasPrefix(rest, "<<<"):
			s.redirect(3)
		case strings.HasPrefix(rest, "<<"):
			return false // a here-document: its lines are not commands
		case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"), strings.HasPrefix(rest, "|&"):
			s.endCommand()
			s.i += 2
		case strings.HasPrefix(rest, "&>>"):
			s.redirect(3)
		case strings.HasPrefix(rest, "&>"), strings.HasPrefix(rest, ">>"), strings.HasPrefix(rest, ">&"),
			strings.HasPrefix(rest, "<&"), strings.HasPrefix(rest, ">|"), strings.HasPrefix(rest, "<>"):
			s.redirect(2)
		case c == '>' || c == '<':
			s.redirect(1)
		case c == '|' || c == '&' || c == ';' || c == '(' || c == ')':
			s.endCommand()
			s.i++
		case c == '#' && !s.inWord:
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case c == '=':
			s.begin()
			s.sawEq = true
			s.word.WriteByte(c)
			s.i++
		default:
			s.begin()
			s.word.WriteByte(c)
			s.i++
		}
	}
	s.endCommand()
	return true
}

func (s *cmdScanner) quote() {
	if !s.sawEq {
		s.quoted = true
	}
}

// double reads a double-quoted part after its opening quote; false for
// an unclosed quote or a command substitution inside it.
func (s *cmdScanner) double() bool {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c == '\\' && s.i+1 < len(s.src) && strings.IndexByte("$`\"\\\n", s.src[s.i+1]) >= 0:
			if s.src[s.i+1] != '\n' {
				s.word.WriteByte(s.src[s.i+1])
			}
			s.i += 2
		case c == '`' || strings.HasPrefix(s.src[s.i:], "$("):
			return false
		default:
			s.word.WriteByte(c)
			s.i++
		}
	}
	return false
}

// cmdKeywords start a command inside a compound one (if git push; then
// …): the command after them is what a rule reads.
var cmdKeywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true,
	"do": true, "while": true, "until": true, "!": true, "{": true}

// cmdWrappers run the command that follows their options. Claude Code
// strips timeout, time, nice, nohup, stdbuf and xargs before matching;
// hookflow strips these and a few more, so that a hook runs where the
// agent's would, and sometimes where it would not.
var cmdWrappers = map[string]bool{"timeout": true, "time": true, "nice": true, "nohup": true,
	"stdbuf": true, "xargs": true, "env": true, "command": true, "builtin": true, "exec": true,
	"sudo": true, "doas": true, "ionice": true}

// wrapperReach is how many words after a wrapper may start the command
// it runs (its options and their values are skipped by trying each).
const wrapperReach = 16

// shellRunners run a command given as an argument (sh -c "git push"),
// and eval, which a rule cannot read: the hook runs.
var shellRunners = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true,
	"ksh": true}

// isDashC reports whether w is a shell's option word holding -c (-c, -lc).
func isDashC(w cmdWord) bool {
	return len(w.text) > 1 && w.text[0] == '-' && w.text[1] != '-' && strings.IndexByte(w.text, 'c') > 0
}

// forms returns the texts of the subcommand a rule is matched against:
// from each word that may start the command it runs (after keywords,
// NAME=value prefixes and wrappers), as written, and with words rejoined
// by single spaces with and without redirections and quotes. opaque is
// true when it runs a command given as an argument, or a program named by
// a variable.
func (c subcommand) forms() (texts []string, opaque bool) {
	first := 0
	for first < len(c.words) && cmdKeywords[c.words[first].text] {
		first++
	}
	starts := map[int]bool{}
	var from func(i, depth int)
	from = func(i, depth int) {
		if i >= len(c.words) || starts[i] {
			return
		}
		starts[i] = true
		for i < len(c.words) && c.words[i].assign {
			i++
			starts[i] = true
		}
		if i >= len(c.words) || depth >= 3 {
			return
		}
		if w := c.words[i].text; cmdWrappers[w] {
			for j := i + 1; j <= i+wrapperReach; j++ {
				from(j, depth+1)
			}
		}
	}
	from(first, 0)
	seen := map[string]bool{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			texts = append(texts, s)
		}
	}
	for i := range starts {
		if i >= len(c.words) {
			continue
		}
		prog := c.words[i]
		if prog.text == "eval" || shellRunners[prog.text] && slices.ContainsFunc(c.words[i+1:], isDashC) ||
			strings.Contains(c.src[prog.start:prog.end], "$") {
			opaque = true // the program is a variable's, or runs its argument
		}
		add(c.src[prog.start:c.end])
		var raw, plain []string
		for _, w := range c.words[i:] {
			if !w.redir {
				raw = append(raw, c.src[w.start:w.end])
				plain = append(plain, w.text)
			}
		}
		add(strings.Join(raw, " "))
		add(strings.Join(plain, " "))
		if len(plain) == 0 {
			continue
		}
		if j := strings.LastIndexByte(plain[0], '/'); j >= 0 {
			// /usr/bin/git push is read as git push too.
			plain[0] = plain[0][j+1:]
			add(strings.Join(plain, " "))
		}
	}
	return texts, opaque
}
