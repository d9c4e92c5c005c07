package command_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command"
)

// copilotFile writes a GitHub Copilot hook file, .github/hooks/hooks.json
// under a fresh repository in the fixture, with the script guard.sh at
// the repository's root, and returns the file's path.
func copilotFile(t *testing.T, f *fixture, file, script string) string {
	t.Helper()
	repo := f.path("repo")
	if err := os.MkdirAll(filepath.Join(repo, ".github", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := os.WriteFile(filepath.Join(repo, "guard.sh"), []byte("#!/bin/bash\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(repo, ".github", "hooks", "hooks.json")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A real bash hook of a Copilot file decides a call of delete as Copilot
// has it: its JSON answer after progress lines, exit 2 and a crash deny,
// a timeout and output that is no JSON let the call go on.
func TestCopilotDecisions(t *testing.T) {
	tests := []struct {
		name, script, extra string
		matcher             string
		block               string // "" when delete runs
		text                string // what delete answers when it runs
		failure             string // the kind of failure recorded, if any
	}{
		{name: "deny", script: `cat >/dev/null; echo '{"type": "progress", "message": "checking"}'; echo '{"permissionDecision": "deny", "permissionDecisionReason": "no deletes"}'`, block: "no deletes"},
		{name: "allow", script: `cat >/dev/null; echo '{"permissionDecision": "allow"}'`, text: "deleted x force=false"},
		{name: "empty", script: `cat >/dev/null`, text: "deleted x force=false"},
		{name: "modifiedArgs", script: `cat >/dev/null; echo '{"modifiedArgs": {"path": "y", "force": true}}'`, text: "deleted y force=true"},
		{name: "exit 2", script: `cat >/dev/null; echo '{"permissionDecision": "allow"}'; exit 2`, block: `denied by command hook "guard" (exit 2)`},
		{name: "crash", script: `cat >/dev/null; exit 1`, block: "exited with code 1", failure: "exit"},
		{name: "crash, open", script: `cat >/dev/null; exit 1`, extra: `, "onFailure": "open"`, text: "deleted x force=false", failure: "exit"},
		{name: "timeout", script: `sleep 5`, extra: `, "timeoutSec": 0.3`, text: "deleted x force=false", failure: "timeout"},
		{name: "not JSON", script: `cat >/dev/null; echo denied`, text: "deleted x force=false", failure: "bad_output"},
		{name: "unknown decision", script: `cat >/dev/null; echo '{"permissionDecision": "block"}'`, text: "deleted x force=false", failure: "bad_output"},
		{name: "ask", script: `cat >/dev/null; echo '{"permissionDecision": "ask", "permissionDecisionReason": "sure?"}'`, block: "this client cannot ask: it does not support elicitation; denied"},
		{name: "anchored matcher", script: `cat >/dev/null; echo '{"permissionDecision": "deny"}'`, matcher: "delet", text: "deleted x force=false"},
		{name: "matcher", script: `cat >/dev/null; echo '{"permissionDecision": "deny", "permissionDecisionReason": "matched"}'`, matcher: "echo|del.*", block: "matched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			m := ""
			if tt.matcher != "" {
				m = `, "matcher": "` + tt.matcher + `"`
			}
			file := copilotFile(t, f, `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./guard.sh"`+m+tt.extra+`}]}}`, tt.script)
			cfg := f.config(nil)
			cfg.Imports = []command.Import{{File: file}}
			s := f.serve(cfg)
			r := s.Call("delete", DeleteIn{Path: "x"})
			if tt.block != "" {
				r.WantToolError(tt.block)
			} else {
				r.WantText(tt.text)
			}
			got := f.audit.find("command hook failure")
			switch {
			case tt.failure == "" && len(got) > 0:
				t.Errorf("failures %q, want none", got)
			case tt.failure != "" && len(f.audit.find("command hook failure", `kind="`+tt.failure+`"`)) != 1:
				t.Errorf("failures %q, want one of kind %s", got, tt.failure)
			}
		})
	}
}

// A Copilot hook reads Copilot's input: camelCase fields, toolArgs as a
// JSON string of the arguments, a timestamp in Unix milliseconds; and
// arguments of megabytes reach it whole. Its env is taken as written.
func TestCopilotInput(t *testing.T) {
	huge := strings.Repeat("é\"\\", 500_000) // 2 MB of text, 3 MB in JSON, 5 MB as toolArgs
	for _, path := range []string{"x", huge} {
		f := newFixture(t)
		out := f.path("stdin.json")
		file := copilotFile(t, f, `{"version": 1, "hooks": {"preToolUse": [{"bash": "./guard.sh", "env": {"OUT": "`+out+`", "LIT": "$HOME"}}]}}`,
			`cat > "$OUT"; [[ "$LIT" == '$HOME' ]] || exit 1; echo '{"permissionDecision": "deny", "permissionDecisionReason": "read"}'`)
		cfg := f.config(nil)
		cfg.Imports = []command.Import{{File: file}}
		s := f.serve(cfg)
		s.Call("delete", DeleteIn{Path: path}).WantToolError("read")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			SessionID string  `json:"sessionId"`
			Timestamp float64 `json:"timestamp"`
			Cwd       string  `json:"cwd"`
			ToolName  string  `json:"toolName"`
			ToolArgs  string  `json:"toolArgs"`
		}
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("stdin %.200s: %v", data, err)
		}
		var args DeleteIn
		if err := json.Unmarshal([]byte(in.ToolArgs), &args); err != nil || args.Path != path {
			t.Errorf("toolArgs %.100q: %v", in.ToolArgs, err)
		}
		if in.ToolName != "delete" || in.Timestamp < 1e12 || in.SessionID == "" || in.Cwd != f.dir {
			t.Errorf("input %.300s", data)
		}
	}
}

// A postToolUse hook replaces the result with modifiedResult and adds
// its additionalContext; a sessionStart hook's context goes to the
// instructions.
func TestCopilotAfter(t *testing.T) {
	f := newFixture(t)
	file := copilotFile(t, f, `{"version": 1, "hooks": {"postToolUse": [{"bash": "./guard.sh", "matcher": "delete"}],
  "sessionStart": [{"bash": "echo '{\"additionalContext\": \"from copilot\"}'"}]}}`,
		`in=$(cat); [[ "$in" == *'"textResultForLlm":"deleted x force=false"'* ]] || exit 0
echo '{"modifiedResult": {"resultType": "success", "textResultForLlm": "redacted"}, "additionalContext": "checked"}'`)
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: file}}
	s := f.serve(cfg)
	r := s.Call("delete", DeleteIn{Path: "x"})
	if got := strings.Join(texts(r.Res), "|"); got != "redacted|checked" {
		t.Errorf("result %q, want redacted|checked", got)
	}
	if got := s.Session().Client().InitializeResult().Instructions; !strings.Contains(got, "from copilot") {
		t.Errorf("instructions %q", got)
	}
}

// A Copilot file that is not what its reference documents is refused,
// naming the key and why; events an MCP server has no counterpart for
// are skipped, and disableAllHooks skips the file's hooks.
func TestCopilotFileRefused(t *testing.T) {
	hook := `{"type": "command", "bash": "./guard.sh"}`
	tests := []struct{ name, file, want string }{
		{"version 2", `{"version": 2, "hooks": {}}`, `version: is 2: hookflow reads GitHub Copilot's hook files of version 1`},
		{"version string", `{"version": "1", "hooks": {}}`, `version: is "1"`},
		{"no version", `{"hooks": {"preToolUse": [` + hook + `]}}`, `version: is missing`},
		{"top key", `{"version": 1, "disableAll": true, "hooks": {}}`, `disableAll: unknown key "disableAll"`},
		{"hook key", `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bsh": "./guard.sh"}]}}`, `preToolUse[0].bsh: unknown key "bsh" (did you mean "bash"?)`},
		{"PascalCase", `{"version": 1, "hooks": {"PreToolUse": [` + hook + `]}}`, `hooks.PreToolUse: "PreToolUse" is the PascalCase form of a GitHub Copilot event`},
		{"event typo", `{"version": 1, "hooks": {"preToolUsed": [` + hook + `]}}`, `unknown event "preToolUsed" (did you mean "preToolUse"?)`},
		{"exec and bash", `{"version": 1, "hooks": {"preToolUse": [{"exec": "./guard.sh", "bash": "x"}]}}`, `preToolUse[0].exec: runs a program without a shell`},
		{"args alone", `{"version": 1, "hooks": {"preToolUse": [{"bash": "./guard.sh", "args": ["a"]}]}}`, `preToolUse[0].args: are the arguments of "exec"`},
		{"prompt", `{"version": 1, "hooks": {"sessionStart": [{"type": "prompt", "prompt": "/plan"}]}}`, `sessionStart[0].type: is "prompt"`},
		{"no command", `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "cwd": "."}]}}`, `preToolUse[0]: has no command`},
		{"cwd outside", `{"version": 1, "hooks": {"preToolUse": [{"bash": "./guard.sh", "cwd": "../.."}]}}`, `preToolUse[0].cwd: "../.." is not a path inside the project directory`},
		{"cwd absolute", `{"version": 1, "hooks": {"preToolUse": [{"bash": "./guard.sh", "cwd": "/etc"}]}}`, `preToolUse[0].cwd: "/etc" is not a path inside`},
		{"bad matcher", `{"version": 1, "hooks": {"preToolUse": [{"bash": "./guard.sh", "matcher": "("}]}}`, `preToolUse[0].matcher: "(" is not a valid regular expression`},
		{"entries", `{"version": 1, "hooks": {"preToolUse": {"bash": "./guard.sh"}}}`, `hooks.preToolUse: must be an array of hook entries`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			file := copilotFile(t, f, tt.file, "exit 0")
			cfg := f.config(nil)
			cfg.Imports = []command.Import{{File: file}}
			_, err := command.Inspect(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Inspect: %v\nwant %q", err, tt.want)
			}
		})
	}
}

// Copilot's events that an MCP server has none of load and are skipped
// with a warning; "disableAllHooks": true skips the file's hooks.
func TestCopilotSkipped(t *testing.T) {
	tests := []struct{ name, file, warn string }{
		{"agent events", `{"version": 1, "hooks": {"sessionEnd": [{"bash": "./guard.sh"}], "agentStop": [{"bash": "./guard.sh"}], "notification": [{"bash": "./guard.sh"}]}}`, "no counterpart in an MCP server"},
		{"disabled", `{"version": 1, "disableAllHooks": true, "hooks": {"preToolUse": [{"bash": "./guard.sh"}]}}`, `"disableAllHooks": true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			file := copilotFile(t, f, tt.file, `echo '{"permissionDecision": "deny"}'`)
			cfg := f.config(nil)
			cfg.Imports = []command.Import{{File: file}}
			s := f.serve(cfg)
			s.Call("delete", DeleteIn{Path: "x"}).WantText("deleted x force=false")
			if len(f.log.find(tt.warn)) == 0 {
				t.Errorf("no warning %q in %q", tt.warn, f.log.recs)
			}
		})
	}
}

// A Copilot file's http hook POSTs Copilot's input and its answer is read
// as a command hook's stdout: a deny blocks.
func TestCopilotHTTP(t *testing.T) {
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		w.Write([]byte(`{"permissionDecision": "deny", "permissionDecisionReason": "policy says no"}`))
	}))
	defer srv.Close()
	f := newFixture(t)
	file := copilotFile(t, f, `{"version": 1, "hooks": {"preToolUse": [{"type": "http", "url": "`+srv.URL+`/hook", "timeoutSec": 5}]}}`, "")
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: file}}
	s := f.serve(cfg)
	s.Call("delete", DeleteIn{Path: "x"}).WantToolError("policy says no")
	var in struct {
		ToolName, ToolArgs string
	}
	body := <-bodies
	if err := json.Unmarshal(body, &in); err != nil || in.ToolName != "delete" || in.ToolArgs != `{"path":"x"}` {
		t.Errorf("the hook got %s (%v)", body, err)
	}
}

// A lenient import of a Copilot file skips a bad entry, with a warning at
// its position, and loads its siblings, as Copilot does.
func TestCopilotLenient(t *testing.T) {
	f := newFixture(t)
	file := copilotFile(t, f, `{"version": 1, "hooks": {"preToolUse": [{"bsh": "./guard.sh"}, {"bash": "./guard.sh"}]}}`,
		`cat >/dev/null; echo '{"permissionDecision": "deny", "permissionDecisionReason": "sibling"}'`)
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: file, Lenient: true}}
	s := f.serve(cfg)
	s.Call("delete", DeleteIn{Path: "x"}).WantToolError("sibling")
	if w := f.log.find("entry skipped (lenient)", `preToolUse[0].bsh: unknown key "bsh"`); len(w) != 1 {
		t.Errorf("warnings %q", f.log.recs)
	}
}
