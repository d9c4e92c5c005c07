package command

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// The defaults of [Config].
const (
	DefaultTimeout        = 30 * time.Second
	DefaultKillGrace      = 2 * time.Second
	DefaultMaxOutputBytes = 1 << 20
	DefaultMaxConcurrent  = 8
)

// DefaultInterpreters are the interpreters a command may name without a
// path when [Config.Interpreters] is nil.
var DefaultInterpreters = []string{"bash", "sh", "python3", "node"}

// DefaultEnv are the variables of the server's environment that hooks get
// when [Config.EnvAllow] is nil. Everything else is left out.
var DefaultEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// Config configures the command-hook plugin. Hooks come from a settings
// file ([Config.SettingsFile]), a Go value ([Config.Settings]), or both
// (the file's first).
type Config struct {
	// Name is the plugin's name (default "command"); set it to attach two
	// command plugins to one server or app.
	Name string
	// SettingsFile is a JSON settings file with a "hooks" object in the
	// agents' format, e.g. a project's .claude/settings.json.
	SettingsFile string
	// Settings are hooks given as a Go value, in the same format.
	Settings Settings
	// Dir is the project directory: the hooks' working directory, the
	// value of $CLAUDE_PROJECT_DIR in commands and environments, and where
	// relative script paths start. The default is the settings file's
	// directory, or its parent when that is an agent's own directory
	// (.claude, .codex, .gemini), as the agents have it; without a file,
	// the server's working directory.
	Dir string
	// TrustStore is the trust store's file (default [DefaultTrustStore]).
	// A hook runs only if its script is in it.
	TrustStore string
	// Untrusted says what Start does with hooks the trust store does not
	// vouch for: [RefuseUntrusted] (default) or [SkipUntrusted].
	Untrusted UntrustedPolicy
	// Interpreters are the programs a command may name without a path,
	// each followed by its script (default [DefaultInterpreters]). They are
	// looked up on the server's PATH once, at Start.
	Interpreters []string
	// EnvAllow names the variables of the server's environment passed to
	// hooks (default [DefaultEnv]); Env and each hook's env add to them.
	EnvAllow []string
	// Env sets variables for every hook.
	Env map[string]string
	// Timeout bounds a hook that sets none (default [DefaultTimeout]).
	Timeout time.Duration
	// KillGrace is how long a stopped hook has between SIGTERM and
	// SIGKILL (default [DefaultKillGrace]).
	KillGrace time.Duration
	// MaxOutputBytes caps each hook's stdout and stderr, each (default
	// [DefaultMaxOutputBytes]); more is a failure.
	MaxOutputBytes int
	// MaxConcurrent caps the processes of one hook that run at once, for
	// hooks that set no cap (default [DefaultMaxConcurrent]).
	MaxConcurrent int
	// ServerName is the name the agents know this server by (the key of
	// their mcpServers setting); hooks read it as "server".
	ServerName string
	// AgentToolNames makes tools appear to matchers and hooks as the
	// agents name MCP tools, mcp__<ServerName>__<tool>, so that matchers
	// and scripts written for an agent work unchanged.
	AgentToolNames bool
	// Priority is the priority of the plugin's hooks (default 0: after
	// auth and rate limits, before the cache).
	Priority int
	// Logger receives failures, skipped hooks and hooks' system messages;
	// nil uses the server's logger.
	Logger *slog.Logger
	// Audit, when set, receives one record per failure of a hook, message
	// "command hook failure", with the attributes of [Failure].
	Audit slog.Handler
}

func (c *Config) validate() error {
	var errs []error
	if c.SettingsFile == "" && len(c.Settings) == 0 {
		errs = append(errs, errors.New("no hooks: set SettingsFile or Settings"))
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"Timeout", c.Timeout}, {"KillGrace", c.KillGrace}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s: must not be negative, got %v", f.name, f.v))
		}
	}
	if c.MaxOutputBytes < 0 {
		errs = append(errs, fmt.Errorf("MaxOutputBytes: must not be negative, got %d", c.MaxOutputBytes))
	}
	if c.MaxConcurrent < 0 {
		errs = append(errs, fmt.Errorf("MaxConcurrent: must not be negative, got %d", c.MaxConcurrent))
	}
	if c.Untrusted != RefuseUntrusted && c.Untrusted != SkipUntrusted {
		errs = append(errs, fmt.Errorf("Untrusted: unknown policy %d (want RefuseUntrusted or SkipUntrusted)", c.Untrusted))
	}
	if c.AgentToolNames && c.ServerName == "" {
		errs = append(errs, errors.New("AgentToolNames: needs ServerName (tools are named mcp__<ServerName>__<tool>)"))
	}
	for k, v := range c.Env {
		if err := checkEnv(k, v); err != nil {
			errs = append(errs, fmt.Errorf("Env: %v", err))
		}
	}
	return errors.Join(errs...)
}

func checkEnv(k, v string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
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
		c.TrustStore = DefaultTrustStore()
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
	}
	return dir
}

// HookInfo describes one command hook of a configuration as Start
// compiles it.
type HookInfo struct {
	// Event is the hook's event; Key is the settings key that named it
	// (the event's name or an alias), sent to the hook as its event name.
	Event Event
	Key   string
	// Matcher is the group's matcher as written.
	Matcher string
	// Name is the hook's name: its hook ID's last part.
	Name string
	// Command is the command line as written.
	Command string
	// Where locates the hook: file:line:col in a settings file, or its
	// path in Config.Settings.
	Where string
	// Path is the hook's path in the settings, e.g. hooks.PreToolUse[0].hooks[1].
	Path string
	// Protocol and OnFailure are the hook's.
	Protocol  Protocol
	OnFailure flows.FailurePolicy
	// Identity is what the trust store must vouch for; Trust is what it
	// says.
	Identity Identity
	Trust    TrustStatus
}

// TrustCommand returns the command that trusts the hook in the store at
// store: for a hook of a settings file, the trust of that file's hooks.
func (h HookInfo) TrustCommand(store, settingsFile string) string {
	if settingsFile != "" {
		return fmt.Sprintf("hookflow hooks trust -store %s %s", shellQuote(store), shellQuote(settingsFile))
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

// compiled is one hook as Start compiled it.
type compiled struct {
	HookInfo
	match   matcher
	cl      commandLine
	hook    Hook
	stamp   fileStamp
	skipped string // why the hook is not registered, "" when it is
}

// compile reads and checks every hook of cfg (defaults applied), resolves
// its command and hashes its script, and says what the trust store makes
// of it. Every problem is reported at once, as *ConfigError values.
func compile(cfg Config, store *TrustStore, logSkip func(msg string, args ...any)) ([]*compiled, error) {
	interps, err := resolveInterpreters(cfg.Interpreters)
	if err != nil {
		return nil, err
	}
	var out []*compiled
	var errs []error
	add := func(s Settings, src *source) {
		for _, key := range s.sortedKeys() {
			ev, known := ParseEvent(key)
			path := "hooks." + key
			if !ev.Valid() {
				if known {
					logSkip("command hooks: event has no counterpart in an MCP server; its hooks are skipped", "event", key, "where", src.errorf(path, "").location())
					continue
				}
				hint := ""
				if sug, ok := suggestEvent(key); ok {
					hint = fmt.Sprintf(" (did you mean %q?)", sug)
				}
				errs = append(errs, src.errorf(path, "unknown event %q%s", key, hint))
				continue
			}
			names := map[string]bool{}
			for gi, g := range s[key] {
				gpath := fmt.Sprintf("%s[%d]", path, gi)
				m, err := compileMatcher(g.Matcher)
				if err != nil {
					errs = append(errs, src.errorf(gpath+".matcher", "%v", err))
					continue
				}
				if len(g.Hooks) == 0 {
					errs = append(errs, src.errorf(gpath, "has no hooks"))
				}
				for hi, h := range g.Hooks {
					hpath := fmt.Sprintf("%s.hooks[%d]", gpath, hi)
					c, cerrs := compileHook(cfg, interps, store, ev, key, g.Matcher, m, h, hpath, src)
					errs = append(errs, cerrs...)
					if c == nil {
						continue
					}
					if names[c.Name] {
						errs = append(errs, src.errorf(hpath, "another hook of %s is named %q: set \"name\" to tell them apart", key, c.Name))
						continue
					}
					names[c.Name] = true
					out = append(out, c)
				}
			}
		}
	}
	if cfg.SettingsFile != "" {
		s, src, err := readSettingsFile(cfg.SettingsFile)
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, j.Unwrap()...)
		} else if err != nil {
			errs = append(errs, err)
		}
		if s != nil {
			add(s, src)
		}
	}
	if len(cfg.Settings) > 0 {
		add(cfg.Settings, &source{})
	}
	return out, joinInOrder(errs)
}

// joinInOrder joins errs with the *ConfigError values of one file in the
// file's order.
func joinInOrder(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		var ca, cb *ConfigError
		if !errors.As(a, &ca) || !errors.As(b, &cb) || ca.File != cb.File {
			return 0
		}
		return cmp.Or(cmp.Compare(ca.Line, cb.Line), cmp.Compare(ca.Col, cb.Col))
	})
	return errors.Join(errs...)
}

func suggestEvent(key string) (string, bool) {
	return suggest.Closest(key, eventKeys())
}

// location returns the error's position, "file:line:col" or the path in
// Config.Settings.
func (e *ConfigError) location() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	return "Config.Settings: " + e.Path
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func compileHook(cfg Config, interps map[string]string, store *TrustStore, ev Event, key, matcherText string, m matcher, h Hook, path string, src *source) (*compiled, []error) {
	var errs []error
	bad := func(field, format string, args ...any) {
		p := path
		if field != "" {
			p += "." + field
		}
		errs = append(errs, src.errorf(p, format, args...))
	}
	if h.Type != "" && h.Type != "command" {
		bad("type", "is %q: hookflow runs command hooks only", h.Type)
		return nil, errs
	}
	cl, err := parseCommand(h.Command, interps, cfg.Dir)
	if err != nil {
		bad("command", "%v", err)
	}
	if h.Name != "" && !namePattern.MatchString(h.Name) {
		bad("name", "%q: use letters, digits, '.', '_' and '-'", h.Name)
	}
	if h.Timeout < 0 || h.Cooldown < 0 || h.MaxConcurrent < 0 || h.MaxOutputBytes < 0 {
		bad("", "timeout, cooldown, maxConcurrent and maxOutputBytes must not be negative")
	}
	if (h.RateLimit.Calls > 0) != (h.RateLimit.Per > 0) {
		bad("rateLimit", "needs both calls (at least 1) and per (seconds), got %d per %v", h.RateLimit.Calls, h.RateLimit.Per)
	}
	if h.Protocol != Claude && h.Protocol != OLLM {
		bad("protocol", "unknown protocol %d", h.Protocol)
	}
	if !h.OnFailure.Valid() {
		bad("onFailure", "unknown policy %d", h.OnFailure)
	}
	for k, v := range h.Env {
		if err := checkEnv(k, v); err != nil {
			bad("env", "%v", err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	c := &compiled{match: m, cl: cl, hook: h}
	c.Event, c.Key, c.Matcher, c.Command, c.Path = ev, key, matcherText, h.Command, path
	c.Protocol, c.OnFailure = h.Protocol, h.OnFailure
	c.Where = src.errorf(path, "").location()
	c.Name = h.Name
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(cl.script), filepath.Ext(cl.script))
		if !namePattern.MatchString(c.Name) {
			c.Name = strings.Map(func(r rune) rune {
				if r < 128 && namePattern.MatchString(string(r)) {
					return r
				}
				return '_'
			}, c.Name)
		}
	}
	sum, stamp, err := hashFile(cl.script)
	if err != nil {
		bad("command", "reading the script: %v", err)
		return nil, errs
	}
	c.stamp = stamp
	c.Identity = Identity{Script: cl.script, SHA256: sum, Interpreter: cl.interpreter}
	if store != nil {
		c.Trust = store.Status(c.Identity)
	}
	return c, nil
}

// Inspect compiles cfg's hooks as Start would (defaults applied, every
// command resolved and its script hashed) and says what the trust store
// makes of each, without starting anything: the "hookflow hooks" verbs
// use it. Settings errors are *ConfigError values, all at once.
func Inspect(cfg Config) ([]HookInfo, error) {
	cfg = cfg.withDefaults()
	store, err := LoadTrustStore(cfg.TrustStore)
	if err != nil {
		return nil, err
	}
	hooks, err := compile(cfg, store, func(string, ...any) {})
	infos := make([]HookInfo, len(hooks))
	for i, h := range hooks {
		infos[i] = h.HookInfo
	}
	return infos, err
}

// matcher selects the calls a group's hooks run for, from the tool name,
// prompt name, resource URI or session source (see the package doc).
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|-]+$`)

func compileMatcher(s string) (matcher, error) {
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case plainMatcher.MatchString(s):
		return matcher{names: strings.Split(s, "|")}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("%q is not a valid regular expression: %v", s, err)
	}
	return matcher{re: re}, nil
}

func (m matcher) match(subject string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(subject)
	}
	return slices.Contains(m.names, subject)
}
