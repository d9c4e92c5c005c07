package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Form is how a hook's command runs, and so what its trust vouches for.
type Form string

// The forms of a command.
const (
	// FormScript is a script file run directly or by an allowed
	// interpreter: trusted by the script's content.
	FormScript Form = ""
	// FormProgram is a program found on PATH with its arguments: trusted
	// by the program's content and the exact command line.
	FormProgram Form = "program"
	// FormRunner is a runner that fetches the code it runs when it runs
	// (npx, uvx, uv run…): trusted by the runner's content and the exact
	// command line, which cannot cover the fetched code; the hook must
	// opt in to it.
	FormRunner Form = "runner"
	// FormShell is a command line only a shell can run (a pipeline, a
	// list, a substitution…), run by the shell: trusted by the exact
	// command line; the hook must opt in to it.
	FormShell Form = "shell"
	// FormHTTP is an http hook, which runs no process: trusted by its
	// definition (URL, headers and the variables they may name); its
	// Identity.Script is "http:" and the URL.
	FormHTTP Form = "http"
	// FormPrompt is a prompt hook, which asks the client's model: trusted
	// by its prompt and model; its Identity.Script is "prompt:", its
	// event and its name.
	FormPrompt Form = "prompt"
	// FormMCPTool is an mcp_tool hook, which calls a tool of an MCP
	// server: trusted by its server, tool, input and whether it may send
	// the call's data; its Identity.Script is "mcp_tool:", the server
	// and the tool, and its Line the input and the opt-in.
	FormMCPTool Form = "mcp_tool"
)

// String returns the form's name: script, program, runner, shell, http,
// prompt or mcp_tool.
func (f Form) String() string {
	if f == FormScript {
		return "script"
	}
	return string(f)
}

// Identity is what the trust store vouches for, by the command's [Form]:
// a script's content and the interpreter that runs it; a program's
// content and the exact command line; or, for a shell line, the exact
// command line and the shell. Paths are display names: the same content
// at another path (a fresh checkout elsewhere) is the same identity.
type Identity struct {
	// Form is the command's form; "" (FormScript) for a script.
	Form Form `json:"form,omitempty"`
	// Script is the absolute path of the script or program, symlinks
	// resolved; "" for a shell line.
	Script string `json:"script,omitempty"`
	// SHA256 is the hex SHA-256 of the script's or program's content, or
	// of the command line for a shell line.
	SHA256 string `json:"sha256"`
	// Interpreter is the interpreter's or shell's absolute path, "" when
	// the file runs directly (its #! line is part of its content).
	Interpreter string `json:"interpreter,omitempty"`
	// Line is the exact command line, for the program, runner and shell
	// forms, whose arguments decide what runs.
	Line string `json:"line,omitempty"`
	// Files are the files a program's or runner's line names, by content.
	Files []FileSum `json:"files,omitempty"`
}

// FileSum is a file that a program's command line names (python3
// guard.py, where python3 is no allowed interpreter), by its content:
// what the program reads may be code, so the trust of the line covers it
// too.
type FileSum struct {
	// Path is the file's absolute path, symlinks resolved: a display
	// name, as Identity.Script is.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of its content.
	SHA256 string `json:"sha256"`
}

// String describes the identity for people: what runs, its SHA-256's
// first 16 digits, and for a runner that the code it fetches is not
// covered.
func (id Identity) String() string {
	short := id.SHA256
	if len(short) > 16 {
		short = short[:16]
	}
	switch id.Form {
	case FormShell:
		return fmt.Sprintf("shell line %q (sha256 %s) run by %s", id.Line, short, id.Interpreter)
	case FormProgram:
		return fmt.Sprintf("program %s (sha256 %s) as %q%s", id.Script, short, id.Line, filesText(id.Files))
	case FormRunner:
		return fmt.Sprintf("runner %s (sha256 %s) as %q%s, which fetches code at run time that this trust does not cover", id.Script, short, id.Line, filesText(id.Files))
	case FormHTTP:
		return fmt.Sprintf("http hook POSTing to %s (definition sha256 %s)", strings.TrimPrefix(id.Script, "http:"), short)
	case FormPrompt:
		return fmt.Sprintf("prompt hook %s (prompt and model sha256 %s)", strings.TrimPrefix(id.Script, "prompt:"), short)
	case FormMCPTool:
		return fmt.Sprintf("mcp_tool hook calling %s with %s (definition sha256 %s)", strings.TrimPrefix(id.Script, "mcp_tool:"), id.Line, short)
	}
	s := fmt.Sprintf("%s (sha256 %s)", id.Script, short)
	if id.Interpreter != "" {
		s += " with " + id.Interpreter
	}
	return s
}

// filesText lists the files of a line for people.
func filesText(files []FileSum) string {
	s := ""
	for _, f := range files {
		s += fmt.Sprintf(" with %s (sha256 %.16s)", f.Path, f.SHA256)
	}
	return s
}

// sameCode reports whether a and b run the same code: same form, content,
// interpreter and line, wherever the file is.
func (id Identity) sameCode(o Identity) bool {
	return id.Form == o.Form && id.SHA256 == o.SHA256 && id.Interpreter == o.Interpreter && id.Line == o.Line &&
		slices.EqualFunc(id.Files, o.Files, func(x, y FileSum) bool { return x.SHA256 == y.SHA256 })
}

// sameFile reports whether a and b are the same file (or line) run the
// same way, whatever its content.
func (id Identity) sameFile(o Identity) bool {
	return id.Form == o.Form && id.Interpreter == o.Interpreter && id.Script == o.Script && id.Script != "" &&
		(id.Form == FormScript || id.Line == o.Line)
}

// IdentityOf returns the identity of script run by interpreter (an
// absolute path, or "" when the script runs directly), as a server would
// record it: the script's path with symlinks resolved and its SHA-256.
// Both files must be regular and writable by their owner only.
func IdentityOf(script, interpreter string) (Identity, error) {
	abs, err := filepath.Abs(script)
	if err != nil {
		return Identity{}, err
	}
	real, err := CheckFile(abs, interpreter == "")
	if err != nil {
		return Identity{}, fmt.Errorf("the script %v", strings.TrimPrefix(err.Error(), "runs "))
	}
	if interpreter != "" {
		if !filepath.IsAbs(interpreter) {
			return Identity{}, fmt.Errorf("the interpreter %q is not an absolute path", interpreter)
		}
		if _, err := CheckFile(interpreter, true); err != nil {
			return Identity{}, fmt.Errorf("the interpreter %v", strings.TrimPrefix(err.Error(), "runs "))
		}
		interpreter = filepath.Clean(interpreter)
	}
	sum, _, err := hashFile(real)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Script: real, SHA256: sum, Interpreter: interpreter}, nil
}

// lineHash is the hex SHA-256 of a command line: what the trust of a
// shell line vouches for.
func lineHash(line string) string {
	sum := sha256.Sum256([]byte(line))
	return hex.EncodeToString(sum[:])
}
