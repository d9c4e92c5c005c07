package command

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

// commandLine is a hook's command, split and resolved once, at Start.
type commandLine struct {
	form trust.Form
	// path is the absolute path exec runs: the interpreter, the shell, the
	// program, or the script when it runs directly.
	path string
	// argv is the process's argv, argv[0] as written.
	argv []string
	// env are the NAME=value assignments the line starts with.
	env []string
	// script is the absolute path of the file whose content the trust
	// store vouches for (symlinks resolved): the script, or the program;
	// "" for a shell line.
	script string
	// interpreter is the absolute path of the interpreter or shell, ""
	// when the file runs directly.
	interpreter string
	// missing are programs a shell line starts that are not on PATH.
	missing []string
}

// projectVars are the variables that name the project directory, as the
// agents' do.
var projectVars = []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"}

// pluginRootVar names a Claude Code plugin's directory in the commands of
// its hooks/hooks.json.
const pluginRootVar = "CLAUDE_PLUGIN_ROOT"

// metachars are the characters a program name may not hold.
const metachars = ";&|<>()`*?[]{}~!#\n\r\x00"

// lineOptions are what a command line is resolved against.
type lineOptions struct {
	// interpreters maps each allowed interpreter name to its absolute
	// path ("" when it is not installed).
	interpreters map[string]string
	// dir is the project directory: relative paths start there.
	dir string
	// vars are the variables the line may name: the hook's environment.
	vars map[string]string
	// shell is the shell's absolute path when the hook may run through
	// one, else "".
	shell string
	// runner allows the hook to be a runner that fetches code.
	runner bool
}

// runners are the programs that fetch the code they run when they run,
// each with the first arguments that make it do so (none: always).
var runners = map[string][]string{
	"npx": nil, "pnpx": nil, "bunx": nil, "uvx": nil,
	"uv": {"run", "tool"}, "pnpm": {"dlx", "exec"}, "yarn": {"dlx"}, "bun": {"x"},
	"pipx": {"run"}, "deno": {"run"}, "go": {"run"},
}

// runnerNames returns the runners' names, sorted.
func runnerNames() []string {
	names := make([]string, 0, len(runners))
	for n := range runners {
		names = append(names, n)
	}
	return sortedStrings(names)
}

// isRunner reports whether argv runs a runner that fetches code.
func isRunner(argv []string) bool {
	subs, ok := runners[filepath.Base(argv[0])]
	if !ok {
		return false
	}
	return subs == nil || len(argv) > 1 && slices.Contains(subs, argv[1])
}

// parseCommand splits line into its environment and argv without a
// shell, decides its form, and resolves its program.
func parseCommand(line string, o lineOptions) (commandLine, error) {
	var cl commandLine
	if strings.TrimSpace(line) == "" {
		return cl, errors.New("is empty")
	}
	w, err := splitCommand(line, func(name string) (string, bool) {
		v, ok := o.vars[name]
		return v, ok
	})
	if err != nil {
		return cl, err
	}
	if w.shell != "" {
		if o.shell == "" {
			return cl, fmt.Errorf("needs a shell: it holds %s. Hooks run without a shell unless the hook opts in: set \"shell\": true on it (or list it under the import's shell), and its trust covers the exact command line; or move the shell syntax into a script", w.shell)
		}
		return shellLine(line, w.commands, o), nil
	}
	cl.env = w.env
	words := w.argv
	prog := words[0]
	if strings.ContainsRune(prog, '/') {
		// The script itself is the program; a relative path starts from
		// the project directory, the hook's working directory.
		path := prog
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.dir, path)
		}
		script, err := trust.CheckFile(path, true)
		if err != nil {
			return cl, err
		}
		cl.path, cl.script = script, script
		cl.argv = append([]string{prog}, words[1:]...)
		return cl, nil
	}
	if isRunner(words) {
		if !o.runner {
			return cl, fmt.Errorf("runs %s, which fetches the code it runs when it runs, so no hash can vouch for it: allow it explicitly with \"runner\": true on the hook (or list %s under the import's runners); the trust listing then shows it as a runner", strings.Join(words[:min(2, len(words))], " "), prog)
		}
		return programLine(cl, trust.FormRunner, words)
	}
	interp, ok := o.interpreters[prog]
	if ok && interp == "" {
		return cl, &missingError{fmt.Sprintf("runs the interpreter %s, which is allowed but not found on the server's PATH", prog)}
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
		script = filepath.Join(o.dir, script)
	}
	script, err = trust.CheckFile(script, false)
	if err != nil {
		return cl, err
	}
	cl.path, cl.interpreter, cl.script = interp, interp, script
	cl.argv = append([]string{prog, script}, words[2:]...)
	return cl, nil
}

// shellLine is line run by the shell; its missing are the programs of
// commands it starts that the server does not have.
func shellLine(line string, commands []string, o lineOptions) commandLine {
	cl := commandLine{form: trust.FormShell, path: o.shell, interpreter: o.shell,
		argv: []string{filepath.Base(o.shell), "-c", line}}
	for _, c := range commands {
		if shellBuiltins[c] || c == "" {
			continue
		}
		if strings.ContainsRune(c, '/') {
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(o.dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				cl.missing = append(cl.missing, c)
			}
		} else if _, err := exec.LookPath(c); err != nil {
			cl.missing = append(cl.missing, c)
		}
	}
	return cl
}

// missingError is a command whose program is not installed.
type missingError struct{ msg string }

func (e *missingError) Error() string { return e.msg }

// programLine resolves a program on PATH, run with its arguments.
func programLine(cl commandLine, form trust.Form, words []string) (commandLine, error) {
	p, err := exec.LookPath(words[0])
	if err != nil {
		return cl, &missingError{fmt.Sprintf("runs %q, which is not on the server's PATH (nor a path, nor an interpreter of Config.Interpreters)", words[0])}
	}
	if p, err = filepath.Abs(p); err != nil {
		return cl, err
	}
	real, err := trust.CheckFile(p, true)
	if err != nil {
		return cl, err
	}
	cl.form, cl.path, cl.script = form, real, real
	cl.argv = words
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

// resolveInterpreters maps each allowed interpreter name to its absolute
// path, looked up on PATH once; a name that is not installed maps to "".
// An interpreter that others than its owner may write is refused.
// isProgramName reports whether n may name an interpreter: a program
// name without a path, a shell metacharacter or white space.
func isProgramName(n string) bool {
	return n != "" && !strings.ContainsAny(n, "/"+metachars+" \t$")
}

func resolveInterpreters(names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		if !isProgramName(n) {
			return nil, fmt.Errorf("Interpreters: %q is not a program name", n)
		}
		out[n] = ""
		p, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		if p, err = filepath.Abs(p); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if _, err := os.Stat(real); err != nil {
			continue
		}
		if _, err := trust.CheckFile(real, true); err != nil {
			return nil, fmt.Errorf("Interpreters: %s: %v", n, err)
		}
		out[n] = p
	}
	return out, nil
}

func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}

func excerpt(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
