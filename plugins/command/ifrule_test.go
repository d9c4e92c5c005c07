package command

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// The "if" rules of Claude Code's permission-rule syntax, as its
// permissions page and hooks reference show them (read 2026-11-27,
// Claude Code 2.1; subcommand matching since 2.1.89, Tool(param:value)
// since 2.1.178), match the calls the agent runs the hook for, and where
// hookflow reads less than the agent it matches more, never less.
func TestIfRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule  string
		tool  string
		input string
		want  bool
	}{
		// A tool alone, and Tool(*).
		{"Bash", "Bash", `{"command": "ls"}`, true},
		{"Bash(*)", "Bash", `{"command": "ls"}`, true},
		{"Bash", "Read", `{"file_path": "/a"}`, false},
		// Exact commands, and * anywhere.
		{"Bash(npm run build)", "Bash", `{"command": "npm run build"}`, true},
		{"Bash(npm run build)", "Bash", `{"command": "npm run build:dev"}`, false},
		{"Bash(npm run *)", "Bash", `{"command": "npm run test"}`, true},
		{"Bash(npm run *)", "Bash", `{"command": "npm runtime"}`, false},
		{"Bash(npm*)", "Bash", `{"command": "npmrc"}`, true},
		{"Bash(ls *)", "Bash", `{"command": "ls -la"}`, true},
		{"Bash(ls *)", "Bash", `{"command": "lsof"}`, false},
		{"Bash(ls*)", "Bash", `{"command": "lsof"}`, true},
		{"Bash(ls *)", "Bash", `{"command": "ls"}`, true}, // wider: the command alone
		{"Bash(* --version)", "Bash", `{"command": "node --version"}`, true},
		{"Bash(* --version)", "Bash", `{"command": "node --help"}`, false},
		{"Bash(git * main)", "Bash", `{"command": "git checkout main"}`, true},
		{"Bash(git * main)", "Bash", `{"command": "git push origin main"}`, true},
		{"Bash(git * main)", "Bash", `{"command": "git checkout dev"}`, false},
		{"Bash(git commit *)", "Bash", `{"command": "git commit -m \"a && b\""}`, true},
		// The legacy :* suffix.
		{"Bash(npm:*)", "Bash", `{"command": "npm install"}`, true},
		{"Bash(npm:*)", "Bash", `{"command": "yarn install"}`, false},
		// Each subcommand, as the agent splits them.
		{"Bash(git push *)", "Bash", `{"command": "ls && git push origin"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "make; git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "false || git push -f"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "echo x | git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "sleep 1 & git push"}`, true},
		{"Bash(git push *)", "Bash", "{\"command\": \"cd repo\\ngit push\"}", true},
		{"Bash(git push *)", "Bash", `{"command": "(cd repo; git push)"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "if true; then git push; fi"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "echo 'git push' && ls"}`, false},
		{"Bash(git push *)", "Bash", `{"command": "echo \"a; git push\""}`, false},
		{"Bash(safe *)", "Bash", `{"command": "safe x && rm -rf /"}`, true},
		{"Bash(rm *)", "Bash", `{"command": "safe x && ls"}`, false},
		// Environment prefixes and wrappers are stripped.
		{"Bash(git push *)", "Bash", `{"command": "FOO=bar git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "timeout 30 git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "nohup nice -n 5 git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "stdbuf -oL git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "timeout -s KILL -k 5 30 git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "time nohup xargs -0 -n 1 -P 4 git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "ls | xargs git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "/usr/bin/git push"}`, true},
		{"Bash(git push *)", "Bash", `{"command": "$GIT push"}`, true}, // a variable's program: cannot tell
		{"Bash(git push *)", "Bash", `{"command": "echo $HOME"}`, false},
		{"Bash(ls && git push)", "Bash", `{"command": "ls && git push"}`, true}, // the whole line
		// Redirections.
		{"Bash(python *)", "Bash", `{"command": "python script.py > output.txt"}`, true},
		{"Bash(npm run test)", "Bash", `{"command": "npm run test 2>&1"}`, true},
		{"Bash(git *)", "Bash", `{"command": "> out; 2>&1 >> log < in"}`, false},
		{"Bash(git *)", "Bash", `{"command": "cat < in | git apply"}`, true},
		// What the reading cannot follow runs the hook.
		{"Bash(git *)", "Bash", `{"command": "echo $(git push)"}`, true},
		{"Bash(git *)", "Bash", "{\"command\": \"echo `git push`\"}", true},
		{"Bash(git *)", "Bash", `{"command": "bash -c 'git push'"}`, true},
		{"Bash(git *)", "Bash", `{"command": "eval \"$CMD\""}`, true},
		{"Bash(git *)", "Bash", `{"command": "cat <<EOF\nx\nEOF"}`, true},
		{"Bash(git *)", "Bash", `{"command": "echo 'unclosed"}`, true},
		{"Bash(git *)", "Bash", `{}`, true},
		{"Bash(git *)", "Bash", `{"command": 7}`, true},
		{"Bash(git *)", "Bash", `{"command": "` + strings.Repeat("x", maxIfInput+1) + `"}`, true},
		// Paths, in gitignore's syntax.
		{"Edit(*.ts)", "Edit", `{"file_path": "/work/src/a.ts"}`, true},
		{"Edit(*.ts)", "Edit", `{"file_path": "/work/src/a.go"}`, false},
		{"Edit(*.ts)", "Write", `{"file_path": "/work/src/a.ts"}`, true}, // Edit rules cover every edit tool
		{"Edit(*.ts)", "Read", `{"file_path": "/work/src/a.ts"}`, false},
		{"Read(./.env)", "Read", `{"file_path": "/work/.env"}`, true},
		{"Read(./.env)", "Read", `{"file_path": "/work/.envrc"}`, false},
		{"Read(/src/**/*.ts)", "Read", `{"file_path": "/work/src/x/y/a.ts"}`, true},
		{"Read(/src/**/*.ts)", "Read", `{"file_path": "/work/lib/a.ts"}`, false},
		{"Read(./secrets/**)", "Read", `{"file_path": "/work/secrets/k.pem"}`, true},
		{"Read(//etc/passwd)", "Read", `{"file_path": "/etc/passwd"}`, true},
		{"Read(//etc/passwd)", "Read", `{"file_path": "/srv/etc/passwd"}`, false},
		{"Read(~/.zshrc)", "Read", `{"file_path": "/home/u/.zshrc"}`, true},
		{"Read(./.env)", "Grep", `{"path": "/work/.env", "pattern": "x"}`, true},
		{"Read(./.env)", "Grep", `{"path": "/work", "pattern": "x"}`, true}, // a search under /work may read .env
		{"Read(./.env)", "Edit", `{"file_path": "/work/.env"}`, false},
		{"Bash( git push * )", "Bash", `{"command": "git push"}`, true},
		{" Bash(git push *) ", "Bash", `{"command": "git push"}`, true},
		{"Read(./.env)", "Read", `{"file_path": "relative/.env.x"}`, true}, // relative: cannot tell
		{"Read(./.env)", "Glob", `{"pattern": "*"}`, true},                 // no path: cannot tell
		// WebFetch domains.
		{"WebFetch(domain:example.com)", "WebFetch", `{"url": "https://example.com/a"}`, true},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url": "https://docs.example.com/a"}`, true},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url": "https://example.org/a"}`, false},
		// Tool(param:value).
		{"Agent(model:opus)", "Agent", `{"model": "opus"}`, true},
		{"Agent(model:opus)", "Agent", `{"model": "sonnet"}`, false},
		{"Agent(isolation:*)", "Agent", `{"isolation": "worktree"}`, true},
		{"Agent(model:*)", "Agent", `{"prompt": "x"}`, false}, // not sent: no match
		{"Bash(run_in_background:true)", "Bash", `{"command": "ls", "run_in_background": true}`, true},
		{"Bash(run_in_background:true)", "Bash", `{"command": "ls"}`, false},
		// MCP tools.
		{"mcp__github", "mcp__github__create_issue", `{}`, true},
		{"mcp__github__*", "mcp__github__create_issue", `{}`, true},
		{"mcp__github__create_issue", "mcp__github__list", `{}`, false},
		{"mcp__github__create_issue(title:*bug*)", "mcp__github__create_issue", `{"title": "a bug here"}`, true},
	}
	for _, tt := range tests {
		name := tt.rule + " " + tt.input
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			r, err := parseIf(tt.rule, settings.PreToolUse)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.matches(tt.tool, json.RawMessage(tt.input)); got != tt.want {
				t.Errorf("%s on %s %s: %v, want %v", tt.rule, tt.tool, tt.input, got, tt.want)
			}
		})
	}
}

// A rule hookflow cannot read as the reference documents it is refused at
// load, with what it reads instead.
func TestIfRuleRefused(t *testing.T) {
	t.Parallel()
	tests := []struct{ rule, want string }{
		{"Bash(git *)|Bash(npm *)", "one rule"},
		{"Bash(git *) || Bash(npm *)", "one rule"},
		{"Edit, Write", "not a tool name"},
		{"Bash(", "not a rule"},
		{"Bash()", "not a rule"},
		{"Bash( )", "not a rule"},
		{"Agent(Explore)", "does not know"},
		{"Skill(commit)", "does not know"},
		{"Read([a-)", "file name pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := parseIf(tt.rule, settings.PreToolUse)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	if _, err := parseIf("Bash(git *)", settings.UserPromptSubmit); err == nil {
		t.Error("an if on UserPromptSubmit is accepted")
	}
}

// A hostile command costs time linear in its length, and one over the
// bound is not read at all.
func TestIfHostileCommand(t *testing.T) {
	t.Parallel()
	r, err := parseIf("Bash(a*b*c*d*e *)", settings.PreToolUse)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("timeout a ", maxIfInput/10-1)
	in, _ := json.Marshal(map[string]string{"command": long})
	if r.matches("Bash", in) {
		t.Error("a long line of wrappers matched")
	}
	many := strings.Repeat("a;", maxIfInput/2-1)
	in, _ = json.Marshal(map[string]string{"command": many})
	if r.matches("Bash", in) {
		t.Error("many subcommands matched")
	}
}

// No command line, however malformed, makes a Bash rule panic, and a
// line that matches keeps matching with a subcommand put before it.
func FuzzIfCommand(f *testing.F) {
	for _, s := range []string{"git push", "a && b || c; d | e & f", "echo 'x", `"a\"b" c`, "> x", "2>&1 git", "FOO=1 timeout 3 nice git", "a\\\nb", "$(x)", "((", "))", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if commandMatches("git *", cmd) && !commandMatches("git *", "true; "+cmd) {
			t.Errorf("%q matches, and not after another subcommand", cmd)
		}
	})
}
