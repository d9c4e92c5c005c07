package command

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
	"github.com/hookflow/hookflow/priority"
)

// The defaults of [Config].
const (
	DefaultTimeout        = 30 * time.Second
	DefaultKillGrace      = 2 * time.Second
	DefaultMaxOutputBytes = 1 << 20
	DefaultMaxConcurrent  = 8
)

// The defaults of the lists of a [Config].
var (
	// DefaultInterpreters are the interpreters a command may name without
	// a path when [Config.Interpreters] is nil.
	DefaultInterpreters = []string{"bash", "sh", "python3", "node"}
	// DefaultEnv are the variables of the server's environment that hooks
	// get when [Config.EnvAllow] is nil. Everything else is left out.
	DefaultEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}
)

// Config configures the command-hook plugin. Hooks come from a settings
// file ([Config.SettingsFile]), a Go value ([Config.Settings]), or both
// (the file's first).
//
// Config is also the plugin's section of a configuration file, under the
// yaml names of its fields. A file names the agents' settings files
// (settings_file, imports); the hooks themselves stay in the agents' own
// JSON format there, whose errors carry that file's positions. Settings,
// Logger and Audit are Go-only. A file holds no secret: pass one to hooks
// from the server's environment with env_allow.
type Config struct {
	// Name is the plugin's name, unique where it is attached and part of
	// its hooks' IDs: no '/' and no white space. Default "command"; set it
	// to attach two command plugins to one server or app.
	Name string `yaml:"name"`
	// SettingsFile is a JSON settings file with a "hooks" object in the
	// agents' format, e.g. a project's .claude/settings.json, a
	// .codex/hooks.json or a .gemini/settings.json. No default: a
	// configuration needs it or Settings.
	SettingsFile string `yaml:"settings_file" path:"relative"`
	// Imports are more files of hooks, each with how to load it: an
	// agent's settings file or a Claude Code plugin, its format, strict or
	// lenient, and the hooks that may run through a shell or a runner.
	// Default none.
	Imports []Import `yaml:"imports"`
	// Settings are hooks given as a Go value, in the same format. Go-only:
	// a configuration file names a settings file instead.
	Settings settings.Settings `yaml:"-"`
	// Dir is the project directory: the hooks' working directory, the
	// value of $CLAUDE_PROJECT_DIR in commands and environments, and where
	// relative script paths start. The default is the settings file's
	// directory, or its parent when that is an agent's own directory
	// (.claude, .codex, .gemini), or the repository of a .github/hooks
	// file, as the agents have it; without a file, the server's working
	// directory.
	Dir string `yaml:"dir" path:"relative"`
	// TrustStore is the trust store's file (default [trust.DefaultPath]).
	// A hook runs only if its script is in it.
	TrustStore string `yaml:"trust_store" path:"relative"`
	// Untrusted says what Start does with hooks the trust store does not
	// vouch for: "refuse" ([RefuseUntrusted], the default) or "skip"
	// ([SkipUntrusted]).
	Untrusted UntrustedPolicy `yaml:"untrusted"`
	// Interpreters are the programs a command may name without a path,
	// each followed by its script (default [DefaultInterpreters]: bash,
	// sh, python3, node; an empty list allows none). Each is a program
	// name, looked up on the server's PATH once, at Start.
	Interpreters []string `yaml:"interpreters"`
	// EnvAllow names the variables of the server's environment passed to
	// hooks (default [DefaultEnv]: PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ,
	// TMPDIR); Env and each hook's env add to them. This is how a hook
	// gets a secret: from the server's environment, never from a file.
	EnvAllow []string `yaml:"env_allow"`
	// Env sets variables for every hook (default none).
	Env map[string]string `yaml:"env"`
	// Timeout bounds a hook that sets none, a duration such as "10s"
	// (default [DefaultTimeout], 30s).
	Timeout time.Duration `yaml:"timeout"`
	// KillGrace is how long a stopped hook has between SIGTERM and
	// SIGKILL, a duration (default [DefaultKillGrace], 2s).
	KillGrace time.Duration `yaml:"kill_grace"`
	// MaxOutputBytes caps each hook's stdout and stderr, each, in bytes
	// (default [DefaultMaxOutputBytes], 1 MiB); more is a failure.
	MaxOutputBytes int `yaml:"max_output_bytes"`
	// MaxConcurrent caps the processes of one hook that run at once, for
	// hooks that set no cap (default [DefaultMaxConcurrent], 8).
	MaxConcurrent int `yaml:"max_concurrent"`
	// ServerName is the name the agents know this server by (the key of
	// their mcpServers setting); hooks read it as "server". Default "".
	ServerName string `yaml:"server_name"`
	// MCPServers maps the MCP servers that the agents' mcp_tool hooks
	// name ("server") to the prefix of their tools on this server: in a
	// gateway, an upstream's name to its prefix, {"fs": "fs_"}, so that
	// the hook's tool read_text_file is the gateway's fs_read_text_file
	// and runs through the gateway's plugins. ServerName maps to "" (this
	// server's own tools). Default none; in a gateway configuration file,
	// every upstream maps by its name to its prefix ([Config.WithUpstreams]),
	// and an entry here, or ServerName, wins over it.
	MCPServers map[string]string `yaml:"mcp_servers"`
	// AgentToolNames makes tools appear to matchers and hooks as the
	// agents name MCP tools, mcp__<ServerName>__<tool>, so that matchers
	// and scripts written for an agent work unchanged. Default false;
	// needs ServerName.
	AgentToolNames bool `yaml:"agent_tool_names"`
	// ToolNames maps the server's tools to the names the hooks' scripts
	// and matchers expect, for every hook. For example, run_command can
	// be Bash with its argument cmd as command (see [settings.ToolNames]); a
	// hook's own toolNames entry for a tool replaces this one. Default
	// none.
	ToolNames settings.ToolNames `yaml:"tool_names"`
	// FailClosed makes every failure of a hook that sets no rule of its
	// own block the call ([settings.RuleClosed]). Default false: such hooks follow
	// the agents' rule ([settings.RuleAgent]), under which only a decision blocks.
	FailClosed bool `yaml:"fail_closed"`
	// Priority is the priority of the plugin's hooks, in [priority.Min,
	// priority.Max] (default 0: after auth and rate limits, before the
	// cache).
	Priority int `yaml:"priority"`
	// Logger receives failures, skipped hooks and hooks' system messages;
	// nil uses the server's logger. Go-only.
	Logger *slog.Logger `yaml:"-"`
	// Audit, when set, receives one record per failure of a hook, message
	// "command hook failure", with the attributes of [Failure]. Go-only.
	Audit slog.Handler `yaml:"-"`
}

// Validate checks c without reading a file or starting anything: hooks to
// load, usable names, non-negative limits, a known policy, valid
// environment names and values. It returns nil or the errors.Join of
// *flows.Error values of code flows.CodeInvalid whose Field is the
// setting's path ("timeout", "env.API_KEY", "interpreters[1]"). The
// hooks themselves are checked at Attach, as *ConfigError values that
// locate them in their settings file. Attach calls it.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Name != "" && strings.ContainsFunc(c.Name, func(r rune) bool { return r == '/' || unicode.IsSpace(r) }) {
		bad("name", "%q must not hold '/' or white space: the name is part of the plugin's hook IDs", c.Name)
	}
	if c.SettingsFile == "" && len(c.Settings) == 0 && len(c.Imports) == 0 {
		bad("settings_file", "no hooks: name the agent's settings file, or import some (or set Settings in Go)")
	}
	for i, imp := range c.Imports {
		f := fmt.Sprintf("imports[%d]", i)
		if (imp.File == "") == (imp.Plugin == "") {
			bad(f, "needs file (a settings file) or plugin (a Claude Code plugin's directory), not both")
		}
		if imp.Agent > settings.AgentCopilot {
			bad(f+".agent", "unknown agent %v", imp.Agent)
		}
		for j, n := range imp.Shell {
			if n == "" {
				bad(fmt.Sprintf("%s.shell[%d]", f, j), "is empty: name a hook, a path such as PreToolUse[0].hooks[1], or *")
			}
		}
		nameErrs(sandbox.Check(nil, imp.Runners), f+".", bad)
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"timeout", c.Timeout}, {"kill_grace", c.KillGrace}} {
		if f.v < 0 {
			bad(f.name, "must not be negative, got %v", f.v)
		}
	}
	if c.MaxOutputBytes < 0 {
		bad("max_output_bytes", "must not be negative, got %d", c.MaxOutputBytes)
	}
	if c.MaxConcurrent < 0 {
		bad("max_concurrent", "must not be negative, got %d", c.MaxConcurrent)
	}
	if c.Untrusted != RefuseUntrusted && c.Untrusted != SkipUntrusted {
		bad("untrusted", "unknown policy %s (want refuse or skip)", c.Untrusted)
	}
	if c.AgentToolNames && c.ServerName == "" {
		bad("agent_tool_names", "needs server_name: tools are named mcp__<server_name>__<tool>")
	}
	for _, pr := range c.ToolNames.Check() {
		bad("tool_names."+pr.Path, "%s", pr.Msg)
	}
	for _, k := range slices.Sorted(maps.Keys(c.MCPServers)) {
		if k == "" {
			bad("mcp_servers", "maps an empty server name: name the server as the agents' mcp_tool hooks do")
		}
	}
	if err := priority.Check(c.Priority); err != nil {
		bad("priority", "%v", err)
	}
	nameErrs(sandbox.Check(c.Interpreters, nil), "", bad)
	for i, k := range c.EnvAllow {
		if !isEnvName(k) {
			bad(fmt.Sprintf("env_allow[%d]", i), "%q is not a variable name", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		switch {
		case !isEnvName(k):
			bad("env."+k, "%q is not a variable name", k)
		case strings.ContainsRune(c.Env[k], 0):
			bad("env."+k, "the value holds a NUL byte")
		}
	}
	return errors.Join(errs...)
}

// nameErrs reports each of the sandbox's name errors in err as a field of
// the configuration, under prefix.
func nameErrs(err error, prefix string, bad func(field, format string, args ...any)) {
	var se *sandbox.Error
	for _, e := range unwrapAll(err) {
		if errors.As(e, &se) {
			bad(prefix+se.Field, "%s", se.Msg)
		}
	}
}

// isEnvName reports whether k can name an environment variable.
func isEnvName(k string) bool { return k != "" && !strings.ContainsAny(k, "=\x00") }

func checkEnv(k, v string) error {
	if !isEnvName(k) {
		return fmt.Errorf("%q is not a variable name", k)
	}
	if strings.ContainsRune(v, 0) {
		return fmt.Errorf("%s: the value holds a NUL byte", k)
	}
	return nil
}

// withDefaults returns c with every default applied.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "command"
	}
	if c.TrustStore == "" {
		c.TrustStore = trust.DefaultPath()
	}
	if abs, err := filepath.Abs(c.TrustStore); err == nil {
		c.TrustStore = abs
	}
	if c.Interpreters == nil {
		c.Interpreters = DefaultInterpreters
	}
	if c.EnvAllow == nil {
		c.EnvAllow = DefaultEnv
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.KillGrace == 0 {
		c.KillGrace = DefaultKillGrace
	}
	if c.MaxOutputBytes == 0 {
		c.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if c.MaxConcurrent == 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.Dir == "" {
		c.Dir = projectDir(c.SettingsFile)
	}
	if c.SettingsFile != "" {
		if abs, err := filepath.Abs(c.SettingsFile); err == nil {
			c.SettingsFile = abs
		}
	}
	c.Imports = slices.Clone(c.Imports)
	for i := range c.Imports {
		for _, p := range []*string{&c.Imports[i].File, &c.Imports[i].Plugin} {
			if *p != "" {
				if abs, err := filepath.Abs(*p); err == nil {
					*p = abs
				}
			}
		}
	}
	if abs, err := filepath.Abs(c.Dir); err == nil {
		c.Dir = abs
	}
	return c
}

// projectDir is the default project directory for a settings file.
func projectDir(settingsFile string) string {
	if settingsFile == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "."
		}
		return wd
	}
	abs, err := filepath.Abs(settingsFile)
	if err != nil {
		abs = settingsFile
	}
	dir := filepath.Dir(abs)
	switch filepath.Base(dir) {
	case ".claude", ".codex", ".gemini":
		return filepath.Dir(dir)
	case "hooks":
		if filepath.Base(filepath.Dir(dir)) == ".github" {
			return filepath.Dir(filepath.Dir(dir)) // GitHub Copilot's: the repository
		}
	}
	return dir
}

// HookInfo describes one command hook of a configuration as Start
// compiles it.
type HookInfo struct {
	// Event is the hook's event; Key is the settings key that named it
	// (the event's name or an alias), sent to the hook as its event name.
	Event settings.Event
	Key   string
	// Matcher is the group's matcher as written.
	Matcher string
	// Name is the hook's name: its hook ID's last part.
	Name string
	// Command is the command line as written.
	Command string
	// Timeout is the hook's timeout as its file sets it (Gemini CLI's
	// milliseconds read as such); 0 uses Config.Timeout.
	Timeout time.Duration
	// Description is the hook's description, as written.
	Description string
	// File is the settings file the hook comes from, "" for Go settings.
	File string
	// trustArgs are the arguments of "hookflow hooks trust" that read the
	// hook's file as the configuration does.
	trustArgs string
	// Where locates the hook: file:line:col in a settings file, or its
	// path in Config.Settings.
	Where string
	// Path is the hook's path in the settings, e.g. hooks.PreToolUse[0].hooks[1].
	Path string
	// Protocol and OnFailure are the hook's.
	Protocol  settings.Protocol
	OnFailure settings.FailureRule
	// Identity is what the trust store must vouch for; Trust is what it
	// says.
	Identity trust.Identity
	Trust    trust.Status
}

// TrustCommand returns the command that trusts the hook in the store at
// store: for a hook of a settings file, the trust of that file's hooks;
// for a script given in Go, the trust of the script; for another form
// given in Go, the Go calls that trust it.
func (h HookInfo) TrustCommand(store, settingsFile string) string {
	if settingsFile != "" {
		args := h.trustArgs
		if args == "" || settingsFile != h.File {
			args = " " + shellQuote(settingsFile)
		}
		return fmt.Sprintf("hookflow hooks trust -store %s%s", shellQuote(store), args)
	}
	if h.Identity.Form != trust.FormScript {
		// "hooks trust -script" trusts a script; a hook of another form
		// given in Go has no file the CLI could read it from.
		return fmt.Sprintf("trust.Update(%q, …) calling Store.Trust with the hook's Identity from command.Inspect", store)
	}
	cmd := fmt.Sprintf("hookflow hooks trust -store %s -script %s", shellQuote(store), shellQuote(h.Identity.Script))
	if h.Identity.Interpreter != "" {
		cmd += " -interpreter " + shellQuote(h.Identity.Interpreter)
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it, for commands
// printed to operators.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
