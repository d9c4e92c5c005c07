package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

// metachars are the characters a program name may not hold.
const metachars = ";&|<>()`*?[]{}~!#\n\r\x00"

// Options are what one hook's command line is read against.
type Options struct {
	// Dir is the project directory: relative paths start there, and it
	// is the process's working directory.
	Dir string
	// Vars are the variables the line may name: the hook's environment.
	Vars map[string]string
	// Shell lets the line run through a shell: "bash" (bash, else sh)
	// when the line needs one, "powershell" (pwsh) always; "" never.
	Shell string
	// Runner lets the line run a runner that fetches code; Runners lets
	// it run those runners only (by program name, "*" for all).
	Runner  bool
	Runners []string
}

// runners are the programs that fetch the code they run when they run,
// each with the first arguments that make it do so (none: always).
var runnerArgs = map[string][]string{
	"npx": nil, "pnpx": nil, "bunx": nil, "uvx": nil,
	"uv": {"run", "tool"}, "pnpm": {"dlx", "exec"}, "yarn": {"dlx"}, "bun": {"x"},
	"pipx": {"run"}, "deno": {"run"}, "go": {"run"},
}

// isRunner reports whether argv runs a runner that fetches code.
func isRunner(argv []string) bool {
	subs, ok := runnerArgs[filepath.Base(argv[0])]
	if !ok {
		return false
	}
	return subs == nil || len(argv) > 1 && slices.Contains(subs, argv[1])
}

// Parse splits line into its assignments and argv without a shell (by
// bash's grammar), decides its form, and resolves its program: a path
// (relative to the project directory) is the script itself; a runner
// that fetches code needs Runner or Runners; an allowed interpreter must
// be followed by its script; any other word is a program on PATH. A line
// that needs a shell runs through one only with Shell. A program or
// interpreter that is not installed is an [*Error] of
// [CodeNotInstalled]; the errors say what is wrong for people and what
// to do about it.
func (sb *Sandbox) Parse(line string, o Options) (Process, error) {
	cl := Process{Dir: o.Dir, Line: line}
	if strings.TrimSpace(line) == "" {
		return cl, errors.New("is empty")
	}
	if o.Shell == "powershell" {
		return sb.powershellLine(cl)
	}
	w, err := splitCommand(line, func(name string) (string, bool) {
		v, ok := o.Vars[name]
		return v, ok
	})
	if err != nil {
		return cl, err
	}
	if len(w.commands) > 0 {
		cl.First = w.commands[0]
	}
	if w.shell != "" {
		if o.Shell == "" || sb.shell == "" {
			return cl, fmt.Errorf("needs a shell: it holds %s. Hooks run without a shell unless the hook opts in: set \"shell\": true on it (or list it under the import's shell), and its trust covers the exact command line; or move the shell syntax into a script", w.shell)
		}
		return sb.shellLine(cl, line, w.commands), nil
	}
	cl.Assigns = w.env
	words := w.argv
	prog := words[0]
	if strings.ContainsRune(prog, '/') {
		// The script itself is the program; a relative path starts from
		// the project directory, the hook's working directory.
		path := prog
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.Dir, path)
		}
		script, err := trust.CheckFile(path, true)
		if err != nil {
			return cl, err
		}
		cl.Path, cl.Script = script, script
		cl.Argv = append([]string{prog}, words[1:]...)
		return cl, nil
	}
	if isRunner(words) {
		if !o.Runner && !slices.Contains(o.Runners, "*") && !slices.Contains(o.Runners, filepath.Base(prog)) {
			return cl, fmt.Errorf("runs %s, which fetches the code it runs when it runs, so no hash can vouch for it: allow it explicitly with \"runner\": true on the hook (or list %s under the import's runners); the trust listing then shows it as a runner", strings.Join(words[:min(2, len(words))], " "), prog)
		}
		return programLine(cl, trust.FormRunner, words)
	}
	interp, ok := sb.interps[prog]
	if ok && interp == "" {
		return cl, &Error{Code: CodeNotInstalled, Msg: fmt.Sprintf("runs the interpreter %s, which is allowed but not found on the server's PATH", prog)}
	}
	if !ok {
		return programLine(cl, trust.FormProgram, words)
	}
	if len(words) < 2 {
		return cl, fmt.Errorf("runs the interpreter %s without a script: write %s /path/to/script", prog, prog)
	}
	if strings.HasPrefix(words[1], "-") {
		return cl, fmt.Errorf("passes %q to %s before the script: the interpreter must be followed by the script's path, so that the code that runs is a file the trust store vouches for (put interpreter options in the script)", words[1], prog)
	}
	script := words[1]
	if !filepath.IsAbs(script) {
		script = filepath.Join(o.Dir, script)
	}
	script, err = trust.CheckFile(script, false)
	if err != nil {
		return cl, err
	}
	cl.Form, cl.Path, cl.Interpreter, cl.Script = trust.FormScript, interp, interp, script
	cl.Argv = append([]string{prog, script}, words[2:]...)
	return cl, nil
}

// powershellLine is cl's line run by PowerShell, which hookflow does not
// read: the hook opted in to it whatever the line holds.
func (sb *Sandbox) powershellLine(cl Process) (Process, error) {
	if len(cl.Line) > maxCommandLen {
		return cl, fmt.Errorf("is %d bytes long, more than the %d a command may have", len(cl.Line), maxCommandLen)
	}
	if sb.pwsh == "" {
		return cl, &Error{Code: CodeNotInstalled, Msg: "runs through PowerShell (\"shell\": \"powershell\"), and pwsh is not on the server's PATH"}
	}
	cl.Form, cl.Path, cl.Interpreter = trust.FormShell, sb.pwsh, sb.pwsh
	cl.Argv = []string{filepath.Base(sb.pwsh), "-NoProfile", "-NonInteractive", "-Command", cl.Line}
	if f := strings.Fields(cl.Line); len(f) > 0 {
		cl.First = f[0]
	}
	return cl, nil
}

// Exec resolves Claude Code's exec form: program (a path, relative to
// the project directory, or a program on PATH) run with args as its
// arguments, each as given, without a shell. Its form is a program's (a
// runner's, with Runner or Runners), so that its trust covers the
// program and the whole argv; Line is the argv quoted as bash would
// read it, for the trust store and for people.
func (sb *Sandbox) Exec(program string, args []string, o Options) (Process, error) {
	argv := append([]string{program}, args...)
	cl := Process{Dir: o.Dir, Line: quoteArgv(argv)}
	if strings.TrimSpace(program) == "" {
		return cl, errors.New("is empty: with args, the command is the program to run")
	}
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return cl, fmt.Errorf("argument %d holds a NUL byte", i)
		}
	}
	if len(cl.Line) > maxCommandLen {
		return cl, fmt.Errorf("is %d bytes long, more than the %d a command may have", len(cl.Line), maxCommandLen)
	}
	if strings.ContainsRune(program, '/') {
		path := program
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.Dir, path)
		}
		real, err := trust.CheckFile(path, true)
		if err != nil {
			return cl, err
		}
		cl.Form, cl.Path, cl.Script, cl.Argv = trust.FormProgram, real, real, argv
		return cl, nil
	}
	if isRunner(argv) {
		if !o.Runner && !slices.Contains(o.Runners, "*") && !slices.Contains(o.Runners, program) {
			return cl, fmt.Errorf("runs %s, which fetches the code it runs when it runs, so no hash can vouch for it: allow it explicitly with \"runner\": true on the hook (or list %s under the import's runners); the trust listing then shows it as a runner", strings.Join(argv[:min(2, len(argv))], " "), program)
		}
		return programLine(cl, trust.FormRunner, argv)
	}
	return programLine(cl, trust.FormProgram, argv)
}

// quoteArgv writes argv as one line bash would split back into it.
func quoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a NUL byte, refused by the caller
			q = a
		}
		b.WriteString(q)
	}
	return b.String()
}

// shellLine is line run by the shell; its missing are the programs of
// commands it starts that the server does not have.
func (sb *Sandbox) shellLine(cl Process, line string, commands []string) Process {
	cl.Form, cl.Path, cl.Interpreter = trust.FormShell, sb.shell, sb.shell
	cl.Argv = []string{filepath.Base(sb.shell), "-c", line}
	for _, c := range commands {
		if shellBuiltins[c] || c == "" {
			continue
		}
		if strings.ContainsRune(c, '/') {
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(cl.Dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				cl.Missing = append(cl.Missing, c)
			}
		} else if _, err := exec.LookPath(c); err != nil {
			cl.Missing = append(cl.Missing, c)
		}
	}
	return cl
}

// programLine resolves a program on PATH, run with its arguments.
func programLine(cl Process, form trust.Form, words []string) (Process, error) {
	p, err := exec.LookPath(words[0])
	if err != nil {
		return cl, &Error{Code: CodeNotInstalled, Msg: fmt.Sprintf("runs %q, which is not on the server's PATH (nor a path, nor an interpreter of Config.Interpreters)", words[0])}
	}
	if p, err = filepath.Abs(p); err != nil {
		return cl, err
	}
	real, err := trust.CheckFile(p, true)
	if err != nil {
		return cl, err
	}
	cl.Form, cl.Path, cl.Script = form, real, real
	cl.Argv = words
	return cl, nil
}

// resolveShell returns the absolute path of the shell that runs the
// hooks that opt in: bash, as Claude Code runs hooks, else sh.
func resolveShell() string {
	for _, n := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(n); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return ""
}

func excerpt(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
