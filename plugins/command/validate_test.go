package command_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	file := command.Config{SettingsFile: ".claude/settings.json"}
	with := func(f func(c *command.Config)) command.Config {
		c := file
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  command.Config
		want []plugintest.FieldErr
	}{
		{"a settings file", file, nil},
		{"Go settings", command.Config{Settings: settings.Settings{"PreToolUse": nil}}, nil},
		{"every setting", command.Config{Name: "claude", SettingsFile: "s.json", Dir: "/srv", TrustStore: "trust.json",
			Untrusted: command.SkipUntrusted, Interpreters: []string{"bash", "python3"}, EnvAllow: []string{"PATH", "API_KEY"},
			Env: map[string]string{"MODE": "ci"}, Timeout: 5 * time.Second, KillGrace: time.Second, MaxOutputBytes: 4096,
			MaxConcurrent: 2, ServerName: "notes", AgentToolNames: true, Priority: 10}, nil},
		{"imports only", command.Config{Imports: []command.Import{{File: ".claude/settings.json", Shell: []string{"*"}},
			{Plugin: "plugins/guards", Agent: settings.AgentClaude, Runners: []string{"npx", "uv"}, Lenient: true, FailClosed: true}}}, nil},
		{"bad imports", command.Config{Imports: []command.Import{{}, {File: "a.json", Plugin: "p"},
			{File: "b.json", Shell: []string{""}, Runners: []string{"npm"}, Agent: 9}}},
			[]plugintest.FieldErr{
				{"imports[0]", "needs file (a settings file) or plugin (a Claude Code plugin's directory), not both"},
				{"imports[1]", "needs file (a settings file) or plugin (a Claude Code plugin's directory), not both"},
				{"imports[2].agent", "unknown agent Agent(9)"},
				{"imports[2].shell[0]", "is empty: name a hook, a path such as PreToolUse[0].hooks[1], or *"},
				{"imports[2].runners[0]", `"npm" is not a runner hookflow knows (bun, bunx, deno, go, npx, pipx, pnpm, pnpx, uv, uvx, yarn)`},
			}},
		{"no interpreters", with(func(c *command.Config) { c.Interpreters = []string{} }), nil},
		{"no hooks", command.Config{},
			[]plugintest.FieldErr{{"settings_file", "no hooks: name the agent's settings file, or import some (or set Settings in Go)"}}},
		{"name with a space", with(func(c *command.Config) { c.Name = "my hooks" }),
			[]plugintest.FieldErr{{"name", `"my hooks" must not hold '/' or white space: the name is part of the plugin's hook IDs`}}},
		{"negative timeout", with(func(c *command.Config) { c.Timeout = -time.Second }),
			[]plugintest.FieldErr{{"timeout", "must not be negative, got -1s"}}},
		{"negative kill_grace", with(func(c *command.Config) { c.KillGrace = -1 }),
			[]plugintest.FieldErr{{"kill_grace", "must not be negative, got -1ns"}}},
		{"negative max_output_bytes", with(func(c *command.Config) { c.MaxOutputBytes = -1 }),
			[]plugintest.FieldErr{{"max_output_bytes", "must not be negative, got -1"}}},
		{"negative max_concurrent", with(func(c *command.Config) { c.MaxConcurrent = -2 }),
			[]plugintest.FieldErr{{"max_concurrent", "must not be negative, got -2"}}},
		{"unknown policy", with(func(c *command.Config) { c.Untrusted = 7 }),
			[]plugintest.FieldErr{{"untrusted", "unknown policy UntrustedPolicy(7) (want refuse or skip)"}}},
		{"agent names without a server name", with(func(c *command.Config) { c.AgentToolNames = true }),
			[]plugintest.FieldErr{{"agent_tool_names", "needs server_name: tools are named mcp__<server_name>__<tool>"}}},
		{"priority out of range", with(func(c *command.Config) { c.Priority = math.MinInt32 - 1 }),
			[]plugintest.FieldErr{{"priority", "priority -2147483649 is out of range [-2147483648, 2147483647]"}}},
		{"interpreter with a path", with(func(c *command.Config) { c.Interpreters = []string{"bash", "/usr/bin/python3", ""} }),
			[]plugintest.FieldErr{
				{"interpreters[1]", `"/usr/bin/python3" is not a program name: write a name the server's PATH finds, without a path`},
				{"interpreters[2]", `"" is not a program name: write a name the server's PATH finds, without a path`},
			}},
		{"bad env_allow", with(func(c *command.Config) { c.EnvAllow = []string{"PATH", "A=B"} }),
			[]plugintest.FieldErr{{"env_allow[1]", `"A=B" is not a variable name`}}},
		{"bad env", with(func(c *command.Config) { c.Env = map[string]string{"Z": "a\x00b", "A=B": "x", "OK": "y"} }),
			[]plugintest.FieldErr{{"env.A=B", `"A=B" is not a variable name`}, {"env.Z", "the value holds a NUL byte"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tt.cfg.Validate())
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestUntrustedPolicyText: the policy reads back from the words a
// configuration file writes, and a near miss names the likely one.
func TestUntrustedPolicyText(t *testing.T) {
	t.Parallel()
	for _, p := range []command.UntrustedPolicy{command.RefuseUntrusted, command.SkipUntrusted} {
		b, err := p.MarshalText()
		var back command.UntrustedPolicy = 9
		if err != nil || back.UnmarshalText(b) != nil || back != p {
			t.Errorf("%v: %q, %v → %v", p, b, err, back)
		}
	}
	if _, err := command.UntrustedPolicy(5).MarshalText(); err == nil {
		t.Error("MarshalText of an unknown policy succeeded")
	}
	var p command.UntrustedPolicy
	for in, want := range map[string]string{
		"skpi":   `unknown policy "skpi" (did you mean "skip"?)`,
		"ignore": `unknown policy "ignore" (want refuse or skip)`,
	} {
		if err := p.UnmarshalText([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("UnmarshalText(%q) = %v, want %q", in, err, want)
		}
	}
}

// An agent's name reads back as itself; an unknown one is refused.
func TestAgentText(t *testing.T) {
	for _, a := range []settings.Agent{settings.AgentAuto, settings.AgentClaude, settings.AgentCodex, settings.AgentGemini, settings.AgentCopilot} {
		b, _ := a.MarshalText()
		var got settings.Agent
		if err := got.UnmarshalText(b); err != nil || got != a {
			t.Errorf("%v round-trips to %v, %v", a, got, err)
		}
	}
	var a settings.Agent
	if err := a.UnmarshalText([]byte("cursor")); err == nil || !strings.Contains(err.Error(), `unknown agent "cursor": want claude, codex, gemini, copilot or auto`) {
		t.Errorf("error %v", err)
	}
}
