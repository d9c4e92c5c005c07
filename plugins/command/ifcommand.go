package command

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
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
// commands Claude Code matches a Bash rule against: those of its lists,
// pipelines, subshells and compound commands, as bash parses them. ok is
// false when the line holds what this reading cannot follow (a command
// or process substitution, an arithmetic expansion, a here-document, a
// line bash would not parse): the rule then runs the hook.
func subcommands(line string) (cmds []subcommand, ok bool) {
	if len(line) > maxIfInput {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, false
	}
	ok = true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			ok = false
		case *syntax.Redirect:
			ok = ok && n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc
		case *syntax.Stmt:
			if c := subcommandOf(line, n); len(c.words) > 0 {
				cmds = append(cmds, c)
			}
		}
		return ok
	})
	return cmds, ok
}

// subcommandOf is st's simple command, its words in the line's order: its
// assignments, arguments and redirections, or a declaration's words.
func subcommandOf(line string, st *syntax.Stmt) subcommand {
	c := subcommand{src: line}
	add := func(n syntax.Node, text string, redir, assign bool) {
		c.words = append(c.words, cmdWord{text: text, start: int(n.Pos().Offset()), end: int(n.End().Offset()), redir: redir, assign: assign})
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			add(a, assignText(line, a), false, true)
		}
		for _, wd := range cmd.Args {
			add(wd, sandbox.Unquote(line, wd), false, isAssignment(wd))
		}
	case *syntax.DeclClause:
		add(cmd.Variant, cmd.Variant.Value, false, false)
		for _, a := range cmd.Args {
			add(a, assignText(line, a), false, !a.Naked)
		}
	default:
		return c
	}
	for _, r := range st.Redirs {
		add(r, line[r.Pos().Offset():r.End().Offset()], true, false)
	}
	slices.SortFunc(c.words, func(a, b cmdWord) int { return a.start - b.start })
	for _, w := range c.words {
		c.end = max(c.end, w.end)
	}
	return c
}

// isAssignment reports whether wd is NAME=value with the name written
// unquoted.
func isAssignment(wd *syntax.Word) bool {
	l, ok := wd.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	name, _, eq := strings.Cut(l.Value, "=")
	return eq && syntax.ValidName(name)
}

// assignText is an assignment's text, its value's quotes removed; a
// declaration's name alone, or an array, as written.
func assignText(line string, a *syntax.Assign) string {
	if a.Naked || a.Append || a.Value == nil || a.Name == nil {
		return line[a.Pos().Offset():a.End().Offset()]
	}
	return a.Name.Value + "=" + sandbox.Unquote(line, a.Value)
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
