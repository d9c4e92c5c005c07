package command

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// compiled is one hook as Start compiled it.
type compiled struct {
	HookInfo
	match matcher
	kind  kind
	cl    sandbox.Process
	hook  settings.Hook
	// pin re-checks the files a command's identity vouches for; nil for
	// an http or prompt hook.
	pin *trust.Pinned
	// dir is the hook's working directory: its file's project directory.
	dir string
	// mcp is what an mcp_tool hook calls; nil for the other kinds.
	mcp *mcpCall
}

// compiler compiles the hooks of every source of a configuration.
type compiler struct {
	cfg   Config
	sb    *sandbox.Sandbox
	base  map[string]string
	store *trust.Store
	warn  func(msg string, args ...any)

	out  []*compiled
	errs []error
	// prompts are the trust-store keys of the prompt hooks so far.
	prompts map[string]bool
}

// compile reads and checks every hook of cfg (defaults applied), resolves
// its command and hashes what it runs, and says what the trust store
// makes of it. Every problem is reported at once, as *ConfigError values;
// a lenient file's bad entries are logged by warn and left out instead.
func compile(cfg Config, sb *sandbox.Sandbox, store *trust.Store, warn func(msg string, args ...any)) ([]*compiled, error) {
	cp := &compiler{cfg: cfg, sb: sb, base: baseEnv(cfg), store: store, warn: warn}
	for _, imp := range cfg.imports() {
		file, opts := imp.file(), imp.options()
		f, err := settings.ReadFile(file, opts.agent)
		if f != nil && opts.lenient {
			// Problems of entries are skipped with the entries; the
			// others refuse the file still.
			err = cp.lenient(err)
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			cp.errs = append(cp.errs, j.Unwrap()...)
		} else if err != nil {
			cp.errs = append(cp.errs, err)
		}
		if f != nil {
			cp.add(f.Hooks, &source{File: f, opts: opts}, imp.projectDir(cfg))
		}
	}
	if len(cfg.Settings) > 0 {
		cp.add(cfg.Settings, &source{File: &settings.File{}}, cfg.Dir)
	}
	return cp.out, joinInOrder(cp.errs)
}

// lenient turns the decoder's problems at entries (a group or a hook) into
// warnings, and returns the others.
func (cp *compiler) lenient(err error) error {
	var keep []error
	for _, e := range unwrapAll(err) {
		var ce *settings.ConfigError
		if errors.As(e, &ce) && entryPath(ce.Path) != "" {
			cp.warn("command hooks: entry skipped (lenient): "+ce.Error(), "where", location(ce))
			continue
		}
		keep = append(keep, e)
	}
	return errors.Join(keep...)
}

func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// entryPath returns the event, group or hook a settings path lies in
// ("hooks.PreToolUse", "hooks.PreToolUse[0]" or
// "hooks.PreToolUse[0].hooks[1]"), or "" for a path above the events.
func entryPath(p string) string {
	rest, ok := strings.CutPrefix(p, "hooks.")
	if !ok || rest == "" {
		return ""
	}
	i := strings.IndexByte(rest, '[')
	if i < 0 {
		return p // an event's value
	}
	j := strings.IndexByte(rest[i:], ']')
	if j < 0 {
		return ""
	}
	group := p[:len("hooks.")+i+j+1]
	if h, ok := strings.CutPrefix(p[len(group):], ".hooks["); ok {
		if k := strings.IndexByte(h, ']'); k >= 0 {
			return group + ".hooks[" + h[:k+1]
		}
	}
	return group
}

// skipBad reports whether path (a group or hook) holds a problem the
// decoder found in a lenient file, its hooks aside: then it is left out.
// A group with a bad hook keeps its other hooks; a group with a bad
// matcher is left out whole, never read as "match everything".
func skipBad(src *source, path string) bool {
	return src.opts.lenient && src.Bad(path)
}

// add compiles the hooks of one source, whose project directory is dir.
func (cp *compiler) add(s settings.Settings, src *source, dir string) {
	fail := func(path string, e *settings.ConfigError) {
		if src.opts.lenient {
			cp.warn("command hooks: entry skipped (lenient): "+e.Error(), "where", location(e))
			return
		}
		cp.errs = append(cp.errs, e)
	}
	names := map[string]bool{}
	var placed []placedHook
	if src.Disabled {
		cp.warn(`command hooks: the file says "disableAllHooks": true; its hooks are skipped`, "where", location(src.Errorf("", "")))
		return
	}
	for _, key := range sortedKeys(s, src.Agent) {
		ev, err := settings.EventOf(src.Agent, key)
		path := "hooks." + key
		if err != nil {
			fail(path, src.Errorf(path, "%v", err))
			continue
		}
		if !ev.Valid() {
			cp.warn("command hooks: event has no counterpart in an MCP server; its hooks are skipped", "event", key, "where", location(src.Errorf(path, "")))
			continue
		}
		for gi, g := range s[key] {
			gpath := fmt.Sprintf("%s[%d]", path, gi)
			if skipBad(src, gpath) {
				continue
			}
			m, err := compileMatcher(g.Matcher, src.Agent, ev)
			if err != nil {
				fail(gpath, src.Errorf(gpath+".matcher", "%v", err))
				continue
			}
			if len(g.Hooks) == 0 {
				fail(gpath, src.Errorf(gpath, "has no hooks"))
			}
			for hi, h := range g.Hooks {
				hpath := fmt.Sprintf("%s.hooks[%d]", gpath, hi)
				if src.Agent == settings.AgentCopilot {
					hpath = gpath // a Copilot entry is its group's one hook
				}
				if skipBad(src, hpath) {
					continue
				}
				c, herrs := cp.hook(ev, key, g.Matcher, m, h, hpath, src, dir)
				for _, e := range herrs {
					fail(hpath, e)
				}
				if c == nil {
					continue
				}
				if h.Name != "" {
					if names[key+"/"+c.Name] {
						fail(hpath, src.Errorf(hpath, "another hook of %s is named %q: set \"name\" to tell them apart", key, c.Name))
						continue
					}
					names[key+"/"+c.Name] = true
				}
				placed = append(placed, placedHook{c, key, h.Name == ""})
			}
		}
	}
	nameUnnamed(placed, names)
	for _, ph := range placed {
		cp.promptIdentity(ph.c)
		cp.out = append(cp.out, ph.c)
	}
}

// placedHook is a hook of a file with the event key it is under, and
// whether its name is derived (from its program, or its kind).
type placedHook struct {
	c       *compiled
	key     string
	derived bool
}

// nameUnnamed makes the derived names of a file's hooks tell them apart:
// a name that hooks under other events have too (one script on two
// events, or two prompt hooks) gets its event, "guard.PreToolUse"; and a
// name its event has already gets its position among them,
// "prompt.PreToolUse-2". names holds the file's given names, by event.
func nameUnnamed(placed []placedHook, names map[string]bool) {
	events := map[string]map[string]bool{} // name -> event keys
	for _, ph := range placed {
		if events[ph.c.Name] == nil {
			events[ph.c.Name] = map[string]bool{}
		}
		events[ph.c.Name][ph.key] = true
	}
	for _, ph := range placed {
		if !ph.derived {
			continue
		}
		c := ph.c
		if len(events[c.Name]) > 1 {
			c.Name += "." + ph.key
		}
		base := c.Name
		for n := 2; names[ph.key+"/"+c.Name]; n++ {
			c.Name = fmt.Sprintf("%s-%d", base, n)
		}
		names[ph.key+"/"+c.Name] = true
	}
}

// promptIdentity keys a prompt hook in the trust store by its event and
// its name, as made unique in its file, and unique in the configuration
// too: two prompt hooks under one key would each read the other's trust
// as "changed".
func (cp *compiler) promptIdentity(c *compiled) {
	if c.Identity.Form != trust.FormPrompt {
		return
	}
	if cp.prompts == nil {
		cp.prompts = map[string]bool{}
	}
	id := c.Key + "/" + c.Name
	for n := 2; cp.prompts[id]; n++ {
		id = fmt.Sprintf("%s/%s-%d", c.Key, c.Name, n)
	}
	cp.prompts[id] = true
	c.Identity.Script = "prompt:" + id
	if cp.store != nil {
		c.Trust = cp.store.Status(c.Identity)
	}
}

// joinInOrder joins errs with the *ConfigError values of one file in the
// file's order.
func joinInOrder(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		var ca, cb *settings.ConfigError
		if !errors.As(a, &ca) || !errors.As(b, &cb) || ca.File != cb.File {
			return 0
		}
		return cmp.Or(cmp.Compare(ca.Line, cb.Line), cmp.Compare(ca.Col, cb.Col))
	})
	return errors.Join(errs...)
}

// location returns the error's position, "file:line:col" or the path in
// Config.Settings.
func location(e *settings.ConfigError) string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	return "Config.Settings: " + e.Path
}

// projectVars are the variables that name the project directory, as the
// agents' do.
var projectVars = []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"}

// pluginRootVar names a Claude Code plugin's directory in the commands of
// its hooks/hooks.json.
const pluginRootVar = "CLAUDE_PLUGIN_ROOT"

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// hook compiles one hook of src at path: what every kind shares (its
// failure rule, name, "if" rule and toolNames), then its kind's own.
func (cp *compiler) hook(ev settings.Event, key, matcherText string, m matcher, h settings.Hook, path string, src *source, dir string) (*compiled, []*settings.ConfigError) {
	p := &problems{src: src, path: path}
	// The hook's rule, else its file's (fail_closed), else the
	// configuration's: the agents' rule unless FailClosed.
	if !h.OnFailure.Valid() {
		p.bad("onFailure", "unknown failure rule %d", h.OnFailure)
	} else if h.OnFailure == settings.RuleDefault {
		h.OnFailure = resolveRule(settings.RuleDefault, src.opts.failClosed || cp.cfg.FailClosed)
	}
	if h.Name != "" && !namePattern.MatchString(h.Name) {
		p.bad("name", "%q: use letters, digits, '.', '_' and '-'", h.Name)
	}
	if src.Path == "" { // a file's toolNames were checked as they were read
		for _, pr := range h.ToolNames.Check() {
			p.bad("toolNames."+pr.Path, "%s", pr.Msg)
		}
	}
	if h.If != "" {
		cond, err := parseIf(h.If, ev)
		if err != nil {
			p.bad("if", "%v", err)
		}
		m.cond = cond
	}
	if h.Cwd != "" {
		dir = hookDir(dir, h.Cwd, p)
	}
	s := &site{ev: ev, key: key, matcherText: matcherText, match: m, hook: h, path: path, src: src, dir: dir,
		failClosed: h.OnFailure == settings.RuleClosed, kind: kindOf(h.Type)}
	if _, ok := s.kind.(mcpToolKind); !ok && (h.Server != "" || h.Tool != "" || h.Input != nil || h.SendArguments) {
		p.bad("server", "only an mcp_tool hook has server, tool, input and sendArguments")
	}
	c := s.kind.compile(cp, s, p)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return c, nil
}

// hookDir returns the working directory a hook's cwd names: a directory
// inside the project directory dir. A cwd outside it is refused: the
// trust of a shell line covers its text, not where it runs.
func hookDir(dir, cwd string, p *problems) string {
	if !filepath.IsLocal(cwd) {
		p.bad("cwd", "%q is not a path inside the project directory: hookflow runs hooks there or below it, where their trust was given", cwd)
		return dir
	}
	d := filepath.Join(dir, cwd)
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		p.bad("cwd", "%q is not a directory of the project", cwd)
		return dir
	}
	return d
}

// commandKind is a hook that runs a process: "type": "command".
type commandKind struct{}

// compile resolves the hook's command line (see parseCommand) and pins
// what its trust vouches for.
func (commandKind) compile(cp *compiler, s *site, p *problems) *compiled {
	h := s.hook
	cl, ok := cp.commandLine(s, p)
	if !ok {
		return nil
	}
	checkLimits(h, p)
	if h.Protocol != settings.Claude && h.Protocol != settings.OLLM && h.Protocol != settings.Copilot {
		p.bad("protocol", "unknown protocol %d", h.Protocol)
	}
	for k, v := range h.Env {
		if err := checkEnv(k, v); err != nil {
			p.bad("env", "%v", err)
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	s.hook.Env = cp.commandEnv(s, cl)
	c := s.compiled()
	c.cl, c.dir, c.Command = cl, s.dir, cl.Line
	c.Name = cmp.Or(h.Name, derivedName(cl))
	pin, err := trust.Pin(cl.Form, cl.Script, cl.Interpreter, cl.Line, cl.Argv[1:], s.dir)
	if err != nil {
		p.bad("command", "%v", err)
		return nil
	}
	c.pin, c.Identity = pin, pin.Identity()
	if cp.store != nil {
		c.Trust = cp.store.Status(c.Identity)
	}
	return c
}

// checkLimits checks the limits every kind of hook has.
func checkLimits(h settings.Hook, p *problems) {
	if h.Timeout < 0 || h.Cooldown < 0 || h.MaxConcurrent < 0 || h.MaxOutputBytes < 0 {
		p.bad("", "timeout, cooldown, maxConcurrent and maxOutputBytes must not be negative")
	}
	if (h.RateLimit.Calls > 0) != (h.RateLimit.Per > 0) {
		p.bad("rateLimit", "needs both calls (at least 1) and per (seconds), got %d per %v", h.RateLimit.Calls, h.RateLimit.Per)
	}
}

// commandLine resolves the command of the hook at s against its
// environment, the interpreters and what its file lets it opt in to
// (a shell, a runner). ok is false when the hook is left out because a
// program it needs is missing (a warning says so).
func (cp *compiler) commandLine(s *site, p *problems) (cl sandbox.Process, ok bool) {
	h, src := s.hook, s.src
	vars := maps.Clone(cp.base)
	for _, v := range projectVars {
		vars[v] = s.dir
	}
	if src.opts.pluginRoot != "" {
		vars[pluginRootVar] = src.opts.pluginRoot
	}
	maps.Copy(vars, h.Env)
	o := sandbox.Options{Dir: s.dir, Vars: vars, Runner: h.Runner, Runners: src.opts.runners, Shell: h.Shell}
	if o.Shell == "" && names(src.opts.shell, h, s.path) {
		o.Shell = "bash"
	}
	var err error
	if h.Args != nil {
		if h.Shell != "" {
			p.bad("args", "runs the program without a shell: remove \"shell\", or write the command as one line without args")
			return cl, false
		}
		cl, err = cp.sb.Exec(fill(h.Command, vars), fillAll(h.Args, vars), o)
	} else {
		cl, err = cp.sb.Parse(h.Command, o)
	}
	var missing *sandbox.Error
	switch {
	case errors.As(err, &missing) && missing.Code == sandbox.CodeNotInstalled && !s.failClosed:
		cp.warn("command hooks: a program the hook needs is missing, so the hook is left out; in the agent it would fail on every call, without blocking: "+missing.Error(),
			"hook", cmp.Or(h.Name, s.path), "where", location(src.Errorf(s.path, "")))
		return cl, false
	case err != nil:
		p.bad("command", "%v", err)
	}
	if len(cl.Missing) > 0 {
		msg := fmt.Sprintf("runs %s, which the server's PATH does not have", strings.Join(cl.Missing, ", "))
		if s.failClosed {
			p.bad("command", "%s (failClosed)", msg)
		} else {
			cp.warn("command hooks: "+msg+": the hook cannot do its work (in the agent, a missing program fails without blocking)", "hook", cmp.Or(h.Name, s.path), "where", location(src.Errorf(s.path, "")))
		}
	}
	return cl, true
}

// execVars are the variables an exec form's elements may name, as
// ${NAME}, which Claude Code fills in: its plugin's root and the project
// directory.
var execVars = []string{pluginRootVar, "CLAUDE_PROJECT_DIR"}

// fill returns s with ${NAME} of each of execVars replaced by its value
// in vars; any other text stays as written.
func fill(s string, vars map[string]string) string {
	for _, name := range execVars {
		if v, ok := vars[name]; ok {
			s = strings.ReplaceAll(s, "${"+name+"}", v)
		}
	}
	return s
}

// fillAll is fill of each element of args.
func fillAll(args []string, vars map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fill(a, vars)
	}
	return out
}

// commandEnv is a command hook's environment beyond the plugin's: its
// own, the line's assignments, the plugin's root and the project
// directory of the hook's own file.
func (cp *compiler) commandEnv(s *site, cl sandbox.Process) map[string]string {
	env := maps.Clone(s.hook.Env)
	if env == nil {
		env = map[string]string{}
	}
	for _, kv := range cl.Assigns {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if s.src.opts.pluginRoot != "" {
		env[pluginRootVar] = s.src.opts.pluginRoot
	}
	if s.dir != cp.cfg.Dir {
		for _, v := range projectVars {
			env[v] = s.dir
		}
	}
	return env
}

// derivedName names a hook after what it runs: its script's or program's
// file name, or a shell line's first program.
func derivedName(cl sandbox.Process) string {
	base := cl.Script
	if cl.Form == trust.FormShell {
		base = cmp.Or(cl.First, "shell")
	}
	name := strings.TrimSuffix(filepath.Base(base), filepath.Ext(base))
	if !namePattern.MatchString(name) {
		name = strings.Map(func(r rune) rune {
			if r < 128 && namePattern.MatchString(string(r)) {
				return r
			}
			return '_'
		}, name)
	}
	return name
}

// Inspect compiles cfg's hooks as Start would (defaults applied, every
// command resolved and its script hashed) and says what the trust store
// makes of each, without starting anything: the "hookflow hooks" verbs
// use it. Settings errors are *ConfigError values, all at once; the
// warnings Start would log (skipped entries, missing programs) go to
// Config.Logger when it is set.
func Inspect(cfg Config) ([]HookInfo, error) {
	cfg = cfg.withDefaults()
	store, err := trust.Load(cfg.TrustStore)
	if err != nil {
		return nil, err
	}
	warn := func(string, ...any) {}
	if cfg.Logger != nil {
		warn = cfg.Logger.Warn
	}
	sb, err := sandbox.New(cfg.Interpreters)
	if err != nil {
		return nil, err
	}
	hooks, err := compile(cfg, sb, store, warn)
	infos := make([]HookInfo, len(hooks))
	for i, h := range hooks {
		infos[i] = h.HookInfo
	}
	return infos, err
}
