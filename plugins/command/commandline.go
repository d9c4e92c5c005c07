package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"
)

// commandLine is a hook's command, split and resolved once, at Start.
type commandLine struct {
	// path is the absolute path exec runs: the interpreter, or the script
	// when it runs directly.
	path string
	// argv is the process's argv, argv[0] as written (the interpreter's
	// name, or the script's path).
	argv []string
	// script is the absolute path of the script, symlinks resolved: the
	// file whose content the trust store vouches for.
	script string
	// interpreter is the absolute path of the interpreter, "" when the
	// script runs directly.
	interpreter string
}

// projectVars are the variables a command may name, as the agents' do;
// they are the project directory. No other $ is allowed.
var projectVars = []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"}

// metachars are the characters a command may not hold anywhere, quoted or
// not: a command is a program and its arguments, never shell syntax, and a
// command that looks like a pipeline would not do what it says.
const metachars = ";&|<>()`*?[]{}~!#\n\r\x00"

// parseCommand splits line into argv without a shell and resolves its
// program. interpreters maps each allowed interpreter name to its
// absolute path; dir is the project directory, which $CLAUDE_PROJECT_DIR
// names and relative script paths start from.
func parseCommand(line string, interpreters map[string]string, dir string) (commandLine, error) {
	var cl commandLine
	if strings.TrimSpace(line) == "" {
		return cl, errors.New("is empty")
	}
	// The project variables are the only $ allowed; what remains must hold
	// no shell syntax at all.
	rest := line
	for _, v := range projectVars {
		rest = strings.ReplaceAll(rest, "${"+v+"}", "")
		rest = strings.ReplaceAll(rest, "$"+v, "")
	}
	if i := strings.IndexAny(rest, metachars+"$"); i >= 0 {
		c := rest[i : i+1]
		if c == "$" {
			return cl, fmt.Errorf("names a variable or substitution (%q): hooks run without a shell; only $CLAUDE_PROJECT_DIR (the project directory) may be used", excerpt(rest[i:]))
		}
		return cl, fmt.Errorf("holds the shell metacharacter %q: hooks run without a shell, so a command is a program and its arguments; put pipelines, redirections and patterns in the script", c)
	}
	p := shellwords.NewParser()
	p.ParseEnv = true
	p.Getenv = func(name string) string {
		for _, v := range projectVars {
			if name == v {
				return dir
			}
		}
		return ""
	}
	words, err := p.Parse(line)
	if err != nil {
		return cl, fmt.Errorf("cannot be split into words: %v (an unclosed quote?)", err)
	}
	if p.Position >= 0 || len(words) == 0 {
		return cl, errors.New("cannot be split into words")
	}
	prog := words[0]
	if strings.ContainsRune(prog, '/') {
		// The script itself is the program.
		if !filepath.IsAbs(prog) {
			return cl, fmt.Errorf("runs %q, a relative path: write it absolute, or as \"$CLAUDE_PROJECT_DIR/%s\"", prog, strings.TrimPrefix(prog, "./"))
		}
		script, err := checkFile(prog, true)
		if err != nil {
			return cl, err
		}
		cl.path, cl.script = script, script
		cl.argv = append([]string{prog}, words[1:]...)
		return cl, nil
	}
	interp, ok := interpreters[prog]
	if ok && interp == "" {
		return cl, fmt.Errorf("runs the interpreter %s, which is allowed but not found on the server's PATH", prog)
	}
	if !ok {
		names := make([]string, 0, len(interpreters))
		for n := range interpreters {
			names = append(names, n)
		}
		return cl, fmt.Errorf("runs %q, which is neither an absolute path nor an allowed interpreter (%s; see Config.Interpreters)", prog, strings.Join(sortedStrings(names), ", "))
	}
	if len(words) < 2 {
		return cl, fmt.Errorf("runs the interpreter %s without a script: write %s /path/to/script", prog, prog)
	}
	if strings.HasPrefix(words[1], "-") {
		return cl, fmt.Errorf("passes %q to %s before the script: the interpreter must be followed by the script's path, so that the code that runs is a file the trust store vouches for (put interpreter options in the script)", words[1], prog)
	}
	script := words[1]
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	script, err = checkFile(script, false)
	if err != nil {
		return cl, err
	}
	cl.path, cl.interpreter, cl.script = interp, interp, script
	cl.argv = append([]string{prog, script}, words[2:]...)
	return cl, nil
}

// checkFile returns path with symlinks resolved, after checking that it is
// a regular file that only its owner may write (and, when exe, executable).
func checkFile(path string, exe bool) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("runs %s, which does not exist", path)
		}
		return "", fmt.Errorf("runs %s: %v", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("runs %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("runs %s, which is not a regular file", path)
	}
	if err := checkNotShared(real, fi); err != nil {
		return "", err
	}
	// Whoever may write the directory may replace the file.
	dir := filepath.Dir(real)
	if di, err := os.Stat(dir); err == nil && di.Mode().Perm()&0o022 != 0 && di.Mode()&fs.ModeSticky == 0 {
		return "", fmt.Errorf("%s is in %s, which its group or others may write (mode %v): anyone who can replace the file decides what the server runs; chmod go-w %s", path, dir, di.Mode().Perm(), dir)
	}
	if exe && fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("runs %s, which is not executable: chmod +x it, or run it with an interpreter (bash %s)", path, path)
	}
	return real, nil
}

// checkNotShared refuses a file that others than its owner may write:
// anyone who can change it could change what the server runs.
func checkNotShared(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or others (mode %v): anyone who can edit it decides what the server runs; chmod go-w %s", path, fi.Mode().Perm(), path)
	}
	return nil
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
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		if err := checkNotShared(real, fi); err != nil {
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
