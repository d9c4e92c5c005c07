package command

import (
	"fmt"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// kind is what a hook of one "type" runs when its matcher selects a call:
// a process (command), a POST (http), a question to the client's model
// (prompt) or a call of a tool (mcp_tool). compiler.hook checks what every hook shares and its kind's
// compile the rest, once, at Attach; at run time hook.run encodes the
// event's input and its kind's run answers. A kind holds no state of its
// own: what one hook needs lives in its compiled and hook values.
type kind interface {
	// compile checks the kind's own settings of s.hook and returns the
	// hook compiled; nil leaves the hook out, with the problems it
	// reported to p (none: a warning said why).
	compile(cp *compiler, s *site, p *problems) *compiled
	// run runs the hook for one call, with the event's input as stdin.
	// A non-nil error is the failure or refusal the hook returns.
	run(h *hook, c *flows.Context, stdin []byte) (decision, error)
}

// kinds are the hook types, by the name a settings file's "type" gives
// them ("" is command, in Go settings); the agents' types hookflow does
// not run are refused, each with why.
var kinds = [...]struct {
	name string
	kind kind
}{
	{"", commandKind{}}, {"command", commandKind{}}, {"http", httpKind{}}, {"prompt", promptKind{}},
	{"agent", refusedKind(`is "agent": agent hooks (experimental in Claude Code) are not run by hookflow; use a command, http or prompt hook, or load the file with lenient to skip it`)},
	{"mcp_tool", mcpToolKind{}},
}

// kindOf returns the kind of a hook's "type".
func kindOf(typ string) kind {
	for _, k := range kinds {
		if k.name == typ {
			return k.kind
		}
	}
	return refusedKind(fmt.Sprintf("is %q: hook types are command, http, prompt, mcp_tool and agent", typ))
}

// refusedKind is a type hookflow does not run; its text says why.
type refusedKind string

func (r refusedKind) compile(_ *compiler, _ *site, p *problems) *compiled {
	p.bad("type", "%s", string(r))
	return nil
}

func (r refusedKind) run(*hook, *flows.Context, []byte) (decision, error) {
	return decision{}, fmt.Errorf("a hook of type that %s ran", string(r))
}

// site is one hook of a settings source, where compile meets it.
type site struct {
	ev          settings.Event
	key         string // the settings key of its event
	matcherText string // its group's matcher, as written
	match       matcher
	hook        settings.Hook
	path        string // e.g. hooks.PreToolUse[0].hooks[1]
	src         *source
	dir         string // its file's project directory
	failClosed  bool   // its rule, resolved, is RuleClosed
	kind        kind
}

// problems collects the *ConfigError values of one hook.
type problems struct {
	src  *source
	path string
	errs []*settings.ConfigError
}

// bad records a problem with the hook's setting field ("" for the hook).
func (p *problems) bad(field, format string, args ...any) {
	path := p.path
	if field != "" {
		path += "." + field
	}
	p.errs = append(p.errs, p.src.Errorf(path, format, args...))
}

// compiled returns a hook compiled at s, with what every kind shares.
func (s *site) compiled() *compiled {
	h := s.hook
	c := &compiled{match: s.match, hook: h, kind: s.kind}
	c.Event, c.Key, c.Matcher, c.Path = s.ev, s.key, s.matcherText, s.path
	c.Protocol, c.OnFailure, c.File, c.Description, c.Timeout = h.Protocol, h.OnFailure, s.src.Path, h.Description, h.Timeout
	c.Where = location(s.src.Errorf(s.path, ""))
	if s.src.Path != "" {
		c.trustArgs = s.src.opts.trustArgs(s.src.Path)
	}
	return c
}
