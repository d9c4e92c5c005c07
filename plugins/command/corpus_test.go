package command_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/command"
)

// copyCorpus copies testdata/corpus/name into the fixture's directory,
// scripts executable and nothing writable by others, and returns the
// copy's root.
func copyCorpus(t *testing.T, f *fixture, name string) string {
	t.Helper()
	root := f.path(name)
	err := filepath.WalkDir(filepath.Join("testdata", "corpus", name), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "corpus", name), p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		return os.WriteFile(dst, data, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The corpus holds settings in each agent's documented forms (see
// docs/command-hooks.md, "The corpus"): each loads as written, and its
// guard blocks the server's delete tool.
func TestCorpus(t *testing.T) {
	tests := []struct {
		name   string
		imp    func(root string) command.Import
		hooks  []string // name/form of each hook loaded, in order
		block  string   // the reason a call of delete is blocked with
		checks func(t *testing.T, infos []command.HookInfo)
	}{{
		name: "claude",
		imp: func(root string) command.Import {
			return command.Import{File: filepath.Join(root, ".claude", "settings.json"),
				Shell: []string{"PostToolUse[0].hooks[0]", "UserPromptSubmit[0].hooks[0]"}}
		},
		hooks: []string{"no-delete/script", "guard/script", "guard-2/script", "cat.PostToolUse/shell", "http/http", "cat.SessionStart/program", "cd/shell", "prompt/prompt"},
		block: "deleting is not allowed here",
		checks: func(t *testing.T, infos []command.HookInfo) {
			if infos[0].Timeout != 10*time.Second {
				t.Errorf("timeout %v, want 10s", infos[0].Timeout)
			}
		},
	}, {
		name: "codex",
		imp: func(root string) command.Import {
			return command.Import{File: filepath.Join(root, ".codex", "hooks.json")}
		},
		hooks: []string{"pre_tool_use/script", "session_start/script"},
		block: "codex: no deletes",
	}, {
		name: "gemini",
		imp: func(root string) command.Import {
			return command.Import{File: filepath.Join(root, ".gemini", "settings.json")}
		},
		hooks: []string{"secret-scan/script", "scan.AfterTool/script", "scan.SessionStart/script"},
		block: "gemini: no deletes",
		checks: func(t *testing.T, infos []command.HookInfo) {
			// Gemini CLI's timeouts are milliseconds.
			if infos[0].Timeout != 1500*time.Millisecond || infos[2].Timeout != time.Minute {
				t.Errorf("timeouts %v and %v, want 1.5s and 1m", infos[0].Timeout, infos[2].Timeout)
			}
			if infos[0].Description != "Refuses writes that hold secrets" {
				t.Errorf("description %q", infos[0].Description)
			}
		},
	}, {
		name: "copilot",
		imp: func(root string) command.Import {
			return command.Import{File: filepath.Join(root, ".github", "hooks", "guard.json")}
		},
		hooks: []string{"guard/script", "bash/program", "audit/script", "echo/program"},
		block: "copilot: no deletes",
		checks: func(t *testing.T, infos []command.HookInfo) {
			// timeoutSec, and timeout as its alias; Copilot's default
			// (30s, the configuration's here) for the others.
			if infos[0].Timeout != 15*time.Second || infos[1].Timeout != 5*time.Second || infos[2].Timeout != 0 {
				t.Errorf("timeouts %v, %v, %v, want 15s, 5s, 0", infos[0].Timeout, infos[1].Timeout, infos[2].Timeout)
			}
			if infos[1].Matcher != "echo|read_.*" || infos[0].Key != "preToolUse" {
				t.Errorf("matcher %q, key %q", infos[1].Matcher, infos[0].Key)
			}
		},
	}, {
		name:  "plugin",
		imp:   func(root string) command.Import { return command.Import{Plugin: filepath.Join(root, "guards")} },
		hooks: []string{"guard/script"},
		block: "plugin guard at ",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			root := copyCorpus(t, f, tt.name)
			cfg := f.config(nil)
			cfg.Imports = []command.Import{tt.imp(root)}
			infos, err := command.Inspect(cfg)
			if err != nil {
				t.Fatalf("the file does not load as written: %v", err)
			}
			var got []string
			for _, h := range infos {
				got = append(got, h.Name+"/"+h.Identity.Form.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.hooks, " ") {
				t.Errorf("hooks %v, want %v", got, tt.hooks)
			}
			if tt.checks != nil && len(infos) == len(tt.hooks) {
				tt.checks(t, infos)
			}
			s := f.serve(cfg)
			s.Call("delete", DeleteIn{Path: "x"}).WantToolError(tt.block)
			if r := s.Call("echo", echoHi); r.IsError() {
				t.Errorf("echo: %s", r.Text())
			}
		})
	}
}

// The corpus's mcp_tool hooks (Claude Code's and Codex's references, see
// docs/command-hooks.md, "mcp_tool hooks") load as written with the
// server they name mapped to this one's tools; a hook that sends the
// call's data is refused, naming the key and the opt-in, until its
// import opts in.
func TestCorpusMCPTool(t *testing.T) {
	tests := []struct {
		name, file string
		sendArgs   []string
		refused    string // the error of a strict load, "" when it loads
		hooks      []string
		block      string
		sent       string // the arguments the policy tool got for delete
	}{
		{name: "claude-mcptool", file: ".claude/settings.json", hooks: []string{"mcp_tool.PreToolUse/mcp_tool", "mcp_tool.PostToolUse/mcp_tool"},
			block: "the policy server keeps delete for the operator"},
		{name: "codex-mcptool", file: ".codex/hooks.json", refused: `PreToolUse[0].hooks[0].input: names ${tool_input.path}, the call's own data, which would go to policy/policy: set "sendArguments": true, or name the hook in its import's send_arguments`},
		{name: "codex-mcptool", file: ".codex/hooks.json", sendArgs: []string{"PreToolUse[0].hooks[0]"}, hooks: []string{"mcp_tool/mcp_tool"}, sent: `{"path":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name+fmt.Sprint(len(tt.sendArgs)), func(t *testing.T) {
			f := newFixture(t)
			root := copyCorpus(t, f, tt.name)
			cfg := f.config(nil)
			cfg.MCPServers = map[string]string{"policy": ""}
			cfg.Imports = []command.Import{{File: filepath.Join(root, tt.file), SendArguments: tt.sendArgs}}
			infos, err := command.Inspect(cfg)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("Inspect: %v\nwant %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("the file does not load as written: %v", err)
			}
			var got []string
			for _, h := range infos {
				got = append(got, h.Name+"/"+h.Identity.Form.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.hooks, " ") {
				t.Errorf("hooks %v, want %v", got, tt.hooks)
			}
			s, sent := policyServer(f, cfg)
			r := s.Call("delete", DeleteIn{Path: "x"})
			if tt.block != "" {
				r.WantToolError(tt.block)
			} else if r.IsError() {
				t.Errorf("delete: %s", r.Text())
			}
			if got := sent(); tt.sent != "" && (len(got) != 1 || got[0] != tt.sent) {
				t.Errorf("the policy tool got %q, want %s", got, tt.sent)
			}
			if r := s.Call("echo", echoHi); r.IsError() {
				t.Errorf("echo: %s", r.Text())
			}
		})
	}
}

// A lenient import's mcp_tool hooks whose server is not mapped here are
// left out at Start with a warning, as its other bad entries are.
func TestCorpusMCPToolLenient(t *testing.T) {
	f := newFixture(t)
	root := copyCorpus(t, f, "claude-mcptool")
	cfg := f.config(nil)
	cfg.Imports = []command.Import{{File: filepath.Join(root, ".claude", "settings.json"), Lenient: true}}
	s, sent := policyServer(f, cfg)
	if r := s.Call("delete", DeleteIn{Path: "x"}); r.IsError() {
		t.Errorf("delete: %s", r.Text())
	}
	if n := len(sent()); n != 0 {
		t.Errorf("a hook left out called its tool %d times", n)
	}
	if w := f.log.find("entry skipped (lenient)", `.server: "policy" is neither this server`); len(w) != 2 {
		t.Errorf("warnings %q, want one per hook", f.log.recs)
	}
}
