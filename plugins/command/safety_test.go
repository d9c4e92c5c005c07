package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// A command is a program and its arguments: no shell, no shell syntax,
// and only programs the configuration allows.
func TestCommandLine(t *testing.T) {
	f := newFixture(t)
	guard := f.script("guard.sh", bash+"exit 0\n")
	f.script("guard.py", "print('{}')\n")
	if err := os.MkdirAll(f.path("dir with space"), 0o755); err != nil {
		t.Fatal(err)
	}
	spaced := f.script("dir with space/guard.sh", bash+"exit 0\n")
	plain := f.script("plain.sh", "exit 0\n")
	if err := os.Chmod(plain, 0o644); err != nil {
		t.Fatal(err)
	}
	shared := f.script("shared.sh", bash+"exit 0\n")
	if err := os.Chmod(shared, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.path("open"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.path("open"), 0o777); err != nil {
		t.Fatal(err)
	}
	inOpen := f.script("open/guard.sh", bash+"exit 0\n")
	tests := []struct {
		command string
		script  string // the script it resolves to, when it is accepted
		interp  bool   // it runs through an interpreter
		form    trust.Form
		err     string
	}{
		{command: guard, script: guard},
		{command: `"$CLAUDE_PROJECT_DIR"/guard.sh`, script: guard},
		{command: `${CLAUDE_PROJECT_DIR}/guard.sh --strict`, script: guard},
		{command: "bash guard.sh", script: guard, interp: true},
		{command: `bash "$CLAUDE_PROJECT_DIR/dir with space/guard.sh" one 'two words'`, script: spaced, interp: true},
		{command: "python3 guard.py", script: f.path("guard.py"), interp: true},
		{command: "./guard.sh", script: guard},
		{command: "HOOK_ASK_CRITICAL=true A='b c' bash guard.sh", script: guard, interp: true},
		{command: "cat guard.sh", script: realPath(t, "cat"), form: trust.FormProgram},
		{command: "bash guard.sh; rm -rf /", err: `needs a shell: it holds a list of commands (";")`},
		{command: "bash guard.sh | tee log", err: `needs a shell: it holds a pipeline ("|")`},
		{command: "bash guard.sh > out", err: `needs a shell: it holds a redirection (">")`},
		{command: "bash guard.sh && true", err: `needs a shell: it holds a list of commands ("&&")`},
		{command: "bash `id`.sh", err: "needs a shell: it holds a command substitution (`…`)"},
		{command: "bash 'guard.sh;x'", err: "runs " + f.path("guard.sh;x") + ", which does not exist"},
		{command: "bash guard.sh *", err: `needs a shell: it holds a file name pattern ("*")`},
		{command: "bash $(whoami).sh", err: `needs a shell: it holds a command substitution ($(…))`},
		{command: "$NOT_SET/guard.sh", err: `needs a shell: it holds the variable $NOT_SET, which the hook's environment does not set`},
		{command: `cd "$CLAUDE_PROJECT_DIR"`, err: `needs a shell: it holds the shell builtin "cd"`},
		{command: "npx some-guard", err: `fetches the code it runs when it runs, so no hash can vouch for it`},
		{command: "bash guard.sh 'unclosed", err: "cannot be split into words"},
		{command: "bash -c 'echo hi'", err: `passes "-c" to bash before the script`},
		{command: "bash", err: "runs the interpreter bash without a script"},
		{command: "/nonexistent/guard.sh", err: "runs /nonexistent/guard.sh, which does not exist"},
		{command: plain, err: "which is not executable: chmod +x it"},
		{command: shared, err: "is writable by its group or others (mode -rwxrwxr-x)"},
		{command: "bash " + f.dir, err: "which is not a regular file"},
		{command: inOpen, err: "which its group or others may write (mode -rwxrwxrwx): anyone who can replace the file"},
		{command: "bash " + shared, err: "(a checkout made under umask 002 is group-writable throughout: chmod -R go-w the checkout, and clone with umask 022)"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: tt.command}))
			infos, err := command.Inspect(cfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Inspect error %v, want %q", err, tt.err)
				}
				var ce *settings.ConfigError
				if !errors.As(err, &ce) || ce.Path != "hooks.PreToolUse[0].hooks[0].command" {
					t.Errorf("error %#v does not name the command's setting", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Inspect: %v", err)
			}
			id := infos[0].Identity
			if id.Script != tt.script || (id.Interpreter != "") != tt.interp || id.Form != tt.form {
				t.Errorf("identity %+v, want script %s (interpreter: %v)", id, tt.script, tt.interp)
			}
		})
	}
}

// Whatever the arguments hold, they reach the hook on stdin only: the
// program and its argv stay those of the settings.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("record.sh", bash+`printf '%s\n' "$#" "$@" > "$CLAUDE_PROJECT_DIR/argv.txt"
cat > "$CLAUDE_PROJECT_DIR/stdin.json"
echo recorded >&2
exit 2
`)
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script + " fixed-arg"})))
	hostile := []string{
		`"; touch PWNED; echo "`,
		"$(touch PWNED)",
		"`touch PWNED`",
		"line one\nline two\r\n; touch PWNED\n",
		`' || touch PWNED || '`,
		// Near the framework's 4 MiB bound on a call's arguments.
		strings.Repeat("$(touch PWNED) ", 4<<20/16),
	}
	for i, text := range hostile {
		// The hook blocks the call after recording its input, so that the
		// result stays small.
		s.Call(plugintest.ToolEcho, plugintest.Text{Text: text}).WantToolError("recorded")
		argv, err := os.ReadFile(f.path("argv.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if string(argv) != "1\nfixed-arg\n" {
			t.Errorf("input %d: the hook's argv was %q", i, argv)
		}
		data, err := os.ReadFile(f.path("stdin.json"))
		if err != nil {
			t.Fatal(err)
		}
		// The arguments arrive JSON-encoded, byte for byte as encoded
		// (a substring search: a 10 MB decode costs seconds under -race).
		want, _ := json.Marshal(map[string]string{"text": text})
		if !bytes.Contains(data, []byte(`"tool_input":`+string(want))) {
			t.Errorf("input %d: stdin did not carry the arguments unchanged", i)
		}
	}
	if exists(f.path("PWNED")) || exists("PWNED") {
		t.Error("a hostile argument ran a command")
	}
}

// The environment is the allowlist, the project directory and the
// configured variables; the working directory is the project's.
func TestEnvironment(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_SECRET", "s3cret")
	t.Setenv("LANG", "C.UTF-8")
	f := newFixture(t)
	script := f.script("env.sh", bash+`env > "$CLAUDE_PROJECT_DIR/env.txt"
pwd > "$CLAUDE_PROJECT_DIR/pwd.txt"
`)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, Env: map[string]string{"HOOK_VAR": "2"}}))
	cfg.Env = map[string]string{"EXTRA": "1"}
	s := f.serve(cfg)
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	data, err := os.ReadFile(f.path("env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	want := map[string]string{"LANG": "C.UTF-8", "CLAUDE_PROJECT_DIR": f.dir, "GEMINI_PROJECT_DIR": f.dir, "GEMINI_CWD": f.dir, "EXTRA": "1", "HOOK_VAR": "2"}
	if id := env["GEMINI_SESSION_ID"]; len(id) != 32 {
		t.Errorf("GEMINI_SESSION_ID=%q, want the session's ID", id)
	}
	want["GEMINI_SESSION_ID"] = env["GEMINI_SESSION_ID"]
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q in the hook's environment, want %q", k, env[k], v)
		}
	}
	if _, ok := env["HOOKFLOW_TEST_SECRET"]; ok {
		t.Error("the server's environment leaked into the hook")
	}
	allowed := map[string]bool{"PWD": true, "SHLVL": true, "_": true, "OLDPWD": true} // set by bash itself
	for _, k := range command.DefaultEnv {
		allowed[k] = true
	}
	for k := range env {
		if !allowed[k] && want[k] == "" {
			t.Errorf("unexpected variable %s in the hook's environment", k)
		}
	}
	if pwd, _ := os.ReadFile(f.path("pwd.txt")); strings.TrimSpace(string(pwd)) != f.dir {
		t.Errorf("working directory %q, want %q", pwd, f.dir)
	}
}

// procState returns the state letter of pid (R, S, Z…) and its parent,
// or "" when the process is gone.
func procState(pid int) (state string, ppid int) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	fields := strings.Fields(rest)
	ppid, _ = strconv.Atoi(fields[1])
	return fields[0], ppid
}

// alive reports whether pid is a running (not dead, not zombie) process.
func alive(pid int) bool {
	st, _ := procState(pid)
	return st != "" && st != "Z" && st != "X"
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombieChildren lists this process's children that are zombies.
func zombieChildren() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ppid := procState(pid); st == "Z" && ppid == os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// A hook's processes do not outlive it: what it leaves behind in its
// process group is killed, and the hook's own process is reaped.
func TestProcessGroupKilled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("bg.sh", bash+`sleep 300 &
echo $! > "$CLAUDE_PROJECT_DIR/bg.pid"
echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
`)
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script})))
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	bg, hook := readPID(t, f.path("bg.pid")), readPID(t, f.path("hook.pid"))
	waitFor(t, "the background child to die", func() bool { return !alive(bg) })
	if st, _ := procState(hook); st != "" {
		t.Errorf("the hook's process %d is still there (state %s): not reaped", hook, st)
	}
}

// A child that leaves the hook's process group (setsid) does not outlive
// the hook either: the call returns after it is killed.
func TestSetsidChildKilled(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program")
	}
	f := newFixture(t)
	script := f.script("daemon.sh", bash+`setsid bash -c 'echo $$ > "$CLAUDE_PROJECT_DIR/d.tmp"; mv "$CLAUDE_PROJECT_DIR/d.tmp" "$CLAUDE_PROJECT_DIR/daemon.pid"; exec sleep 300' &
while [ ! -s "$CLAUDE_PROJECT_DIR/daemon.pid" ]; do sleep 0.01; done
`)
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script})))
	if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatal(r.Text())
	}
	daemon := readPID(t, f.path("daemon.pid"))
	t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) })
	if alive(daemon) {
		t.Errorf("the setsid child %d outlived its hook", daemon)
	}
}

// On timeout the group gets SIGTERM, and SIGKILL after the grace when it
// does not exit; the failure follows the hook's rule: it blocks under
// failClosed, and the call goes on under the agents' rule.
func TestTimeout(t *testing.T) {
	t.Parallel()
	for _, rule := range []settings.FailureRule{settings.RuleClosed, settings.RuleAgent} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			script := f.script("stuck.sh", bash+`echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
trap 'echo term > "$CLAUDE_PROJECT_DIR/term.txt"' TERM
while true; do sleep 0.05; done
`)
			s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, Timeout: 300 * time.Millisecond, OnFailure: rule})))
			r := s.Call(plugintest.ToolEcho, echoHi)
			policy := "open" // under the agents' rule a timeout does not block
			if rule == settings.RuleClosed {
				policy = "closed"
				r.WantToolError(`command hook "stuck" failed (timeout): ran past its timeout of 300ms and was killed`)
			} else if r.IsError() {
				t.Fatalf("fail-open call failed: %s", r.Text())
			}
			pid := readPID(t, f.path("hook.pid"))
			if st, _ := procState(pid); st != "" {
				t.Errorf("the hook's process is still there (state %s)", st)
			}
			if !exists(f.path("term.txt")) {
				t.Error("the hook never got SIGTERM")
			}
			if len(f.audit.find("command hook failure", `kind="timeout"`, `name="stuck"`, `policy="`+policy+`"`)) != 1 {
				t.Errorf("timeout not audited: %q", f.audit.recs)
			}
		})
	}
}

// When the client cancels the request, the hook is killed and reaped.
func TestCancellation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("slow.sh", bash+`echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
touch "$CLAUDE_PROJECT_DIR/started"
sleep 30
`)
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script})))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *plugintest.Result)
	go func() { done <- s.Session().CallContext(ctx, plugintest.ToolEcho, echoHi) }()
	waitFor(t, "the hook to start", func() bool { return exists(f.path("started")) })
	cancel()
	<-done
	waitFor(t, "the cancellation to be audited", func() bool {
		return len(f.audit.find("command hook failure", `kind="canceled"`, `name="slow"`)) == 1
	})
	pid := readPID(t, f.path("hook.pid"))
	if st, _ := procState(pid); st != "" {
		t.Errorf("the cancelled hook's process is still there (state %s)", st)
	}
}

// stdout and stderr are capped; going over is a failure, and a hook that
// writes forever is stopped by the cap, not the timeout.
func TestOutputCap(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, script string }{
		{"stdout", bash + "head -c 5000 /dev/zero\n"},
		{"stderr", bash + "head -c 5000 /dev/zero >&2\n"},
		{"endless", bash + "yes\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			script := f.script("loud.sh", tt.script)
			s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, MaxOutputBytes: 1000})))
			r := s.Call(plugintest.ToolEcho, echoHi)
			r.WantToolError(`command hook "loud" failed (output_cap): wrote more than 1000 bytes on`)
			if len(f.audit.find("command hook failure", `kind="output_cap"`)) != 1 {
				t.Errorf("output cap not audited: %q", f.audit.recs)
			}
		})
	}
}

// Close kills the running hooks; later runs fail.
func TestShutdown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	script := f.script("slow.sh", bash+`echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
touch "$CLAUDE_PROJECT_DIR/started"
sleep 30
`)
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script})))
	done := make(chan *plugintest.Result)
	go func() { done <- s.Call(plugintest.ToolEcho, echoHi) }()
	waitFor(t, "the hook to start", func() bool { return exists(f.path("started")) })
	if err := s.plugin.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	(<-done).WantToolError("the server is shutting down; the hook was killed")
	if st, _ := procState(readPID(t, f.path("hook.pid"))); st != "" {
		t.Errorf("the hook's process is still there (state %s)", st)
	}
	s.Call(plugintest.ToolEcho, echoHi).WantToolError("failed (shutdown): the plugin is closed")
}

// No hook leaves a zombie: every process the plugin started was reaped.
// TestMain checks the same once every test, killed hooks included, ran.
func TestNoZombies(t *testing.T) {
	f := newFixture(t)
	script := f.script("quick.sh", bash+"sleep 0.01 &\nexit 3\n")
	s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, OnFailure: settings.RuleOpen})))
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { s.Call(plugintest.ToolEcho, echoHi) })
	}
	wg.Wait()
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombie children: %v", z)
	}
}

// maxConcurrent caps the processes of one hook: with one slot, runs never
// overlap, and a run that finds the slot busy for its whole timeout fails.
func TestConcurrencyCap(t *testing.T) {
	t.Parallel()
	t.Run("runs never overlap", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		script := f.script("one.sh", bash+`if mkdir "$CLAUDE_PROJECT_DIR/lock" 2>/dev/null; then
  sleep 0.1; rmdir "$CLAUDE_PROJECT_DIR/lock"
else
  echo overlap >> "$CLAUDE_PROJECT_DIR/overlap"
fi
`)
		s := f.serve(f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, MaxConcurrent: 1})))
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
					t.Error(r.Text())
				}
			})
		}
		wg.Wait()
		if exists(f.path("overlap")) {
			t.Error("two runs of a hook capped at 1 overlapped")
		}
	})
	t.Run("busy", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		// The first run ignores SIGTERM and holds its slot until the
		// test releases it, well past the second run's wait.
		script := f.script("hold.sh", bash+`trap '' TERM
touch "$CLAUDE_PROJECT_DIR/started"
while [ ! -e "$CLAUDE_PROJECT_DIR/release" ]; do sleep 0.02; done
`)
		cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: script, MaxConcurrent: 1, Timeout: 300 * time.Millisecond, OnFailure: settings.RuleClosed}))
		cfg.KillGrace = 10 * time.Second
		s := f.serve(cfg)
		first := make(chan *plugintest.Result)
		go func() { first <- s.Call(plugintest.ToolEcho, echoHi) }()
		waitFor(t, "the first run to start", func() bool { return exists(f.path("started")) })
		s.Call(plugintest.ToolEcho, echoHi).WantToolError(`command hook "hold" failed (busy): all 1 of its slots stayed busy for its timeout of 300ms`)
		if err := os.WriteFile(f.path("release"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		(<-first).WantToolError("failed (timeout)")
	})
}

// The rate limit and the cooldown count per hook and session.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hook settings.Hook
		ok   int // calls allowed in a session
		want string
	}{
		{"rate limit", settings.Hook{RateLimit: settings.RateLimit{Calls: 2, Per: time.Hour}}, 2, "failed (rate_limit): over its rate limit of 2 runs per 1h0m0s in this session"},
		{"cooldown", settings.Hook{Cooldown: time.Hour}, 1, "failed (rate_limit): in its cooldown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tt.hook.Command = f.script("counted.sh", bash+`echo run >> "$CLAUDE_PROJECT_DIR/runs"`+"\n")
			s := f.serve(f.config(hooksFor("PreToolUse", "", tt.hook)))
			for i := range tt.ok {
				if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
					t.Fatalf("call %d: %s", i, r.Text())
				}
			}
			s.Call(plugintest.ToolEcho, echoHi).WantToolError(tt.want)
			if r := s.Connect(nil).Call(plugintest.ToolEcho, echoHi); r.IsError() {
				t.Errorf("another session was limited: %s", r.Text())
			}
			runs, _ := os.ReadFile(f.path("runs"))
			if got := strings.Count(string(runs), "run"); got != tt.ok+1 {
				t.Errorf("the hook ran %d times, want %d", got, tt.ok+1)
			}
		})
	}
}

// The project directory default follows the agents: the parent of .claude.
func TestProjectDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.MkdirAll(f.path(".claude/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := f.script(".claude/hooks/guard.sh", bash+"exit 0\n")
	settingsFile := f.path(".claude/settings.json")
	if err := os.WriteFile(settingsFile, []byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	infos, err := command.Inspect(command.Config{SettingsFile: settingsFile, TrustStore: f.store})
	if err != nil {
		t.Fatal(err)
	}
	if infos[0].Identity.Script != script {
		t.Errorf("script %s, want %s", infos[0].Identity.Script, filepath.Clean(script))
	}
}
