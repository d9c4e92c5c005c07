package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
)

// Settings is the "hooks" part of an agent's settings: per hook event, the
// matcher groups with their command handlers. The three agents share this
// shape (Claude Code's and Gemini CLI's settings.json, Codex's hooks.json).
type Settings struct {
	Hooks map[string][]Group `json:"hooks"`
}

// Group is one matcher group of a hook event.
type Group struct {
	// Matcher is a regular expression over the tool name (tool events
	// only); empty matches every call.
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// Handler is one command hook.
type Handler struct {
	// Name identifies the hook in Gemini CLI's /hooks commands.
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	// Args are the arguments of Claude Code's exec form, where Command
	// is the program, run with no shell.
	Args []string `json:"args,omitempty"`
	// Timeout is in seconds for Claude Code and Codex, milliseconds for
	// Gemini CLI.
	Timeout int64 `json:"timeout,omitempty"`
}

// Skipped is a declaration the agent cannot carry to the model.
type Skipped struct {
	Index       int
	Declaration declared.Declaration
	Why         string
}

// Settings returns the hook settings that run command at every hook event
// carrying one of decls, with a matcher that spares the agent starting
// the command for tools no declaration names (the command matches again,
// precisely), and the declarations no hook of the agent can carry.
// timeout bounds one run of the command. name names the handlers (Gemini
// CLI shows it).
func (a Agent) Settings(decls []declared.Declaration, command, name string, timeout time.Duration) (Settings, []Skipped) {
	s := Settings{Hooks: map[string][]Group{}}
	var skipped []Skipped
	byHook := map[string][]declared.Declaration{}
	var order []binding
	for i, d := range decls {
		b, ok := a.binding(d.Event)
		if !ok {
			skipped = append(skipped, Skipped{Index: i, Declaration: d, Why: fmt.Sprintf("no %s hook shows text to the model at %s", a, d.Event)})
			continue
		}
		if _, seen := byHook[b.hook]; !seen {
			order = append(order, b)
		}
		byHook[b.hook] = append(byHook[b.hook], d)
	}
	h := Handler{Type: "command", Command: command, Timeout: int64(timeout / time.Second)}
	if a == Gemini {
		h.Name, h.Timeout = name, timeout.Milliseconds()
	}
	for _, b := range order {
		g := Group{Hooks: []Handler{h}}
		if b.tool {
			g.Matcher = a.toolMatcher(byHook[b.hook])
		}
		s.Hooks[b.hook] = []Group{g}
	}
	return s, skipped
}

// exec writes every handler of s in Claude Code's exec form, as argv.
func (s Settings) exec(argv []string) {
	for _, groups := range s.Hooks {
		for i := range groups {
			for j := range groups[i].Hooks {
				groups[i].Hooks[j].Command, groups[i].Hooks[j].Args = argv[0], argv[1:]
			}
		}
	}
}

// line is the command line h runs: its Command, or its exec form's argv
// quoted, so that an export in either form knows the other as its own.
func (h Handler) line() string {
	if h.Args == nil {
		return h.Command
	}
	return Quote(append([]string{h.Command}, h.Args...)...)
}

// toolMatcher returns an anchored regular expression matching the tool
// names any of decls may fire for, as the agent names them (an MCP
// server's tools as mcp__<server>__<tool>; its built-in tools by its own
// names, [Agent.ToolNames], whatever agent's name the declaration uses),
// or "" when one of them fires for every tool.
func (a Agent) toolMatcher(decls []declared.Declaration) string {
	var alts []string
	add := func(alt string) {
		if !slices.Contains(alts, alt) {
			alts = append(alts, alt)
		}
	}
	for _, d := range decls {
		m := d.Matcher
		if m == nil || m.ToolName == "" && m.ToolServer == "" {
			return ""
		}
		name := globRegexp(m.ToolName)
		if m.ToolName == "" {
			name = ".*"
		}
		if m.ToolServer != "" {
			add("mcp__" + regexp.QuoteMeta(m.ToolServer) + "__" + name)
			continue
		}
		add("(?:mcp__.+__)?" + name)
		for _, b := range builtins {
			for _, own := range b.names[a] {
				if declared.Glob(m.ToolName, own) {
					continue // the glob itself matches it
				}
				if slices.ContainsFunc(a.ToolAliases(own), func(n string) bool { return declared.Glob(m.ToolName, n) }) {
					add(regexp.QuoteMeta(own))
				}
			}
		}
	}
	return "^(?:" + strings.Join(alts, "|") + ")$"
}

// globRegexp translates a declared.Glob pattern into a regular expression.
func globRegexp(glob string) string {
	var b strings.Builder
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// Merge returns the settings file existing (JSON; empty for a new file)
// with s added to its "hooks": groups whose handlers all run one of s's
// commands (those a previous export wrote, in the line or the exec form)
// are replaced, every other key
// and hook is kept. name is the file's name, for errors.
func Merge(name string, existing []byte, s Settings) ([]byte, error) {
	top := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(existing)) > 0 {
		if err := json.Unmarshal(existing, &top); err != nil {
			return nil, jsonError(name, existing, err)
		}
	}
	hooks := map[string][]json.RawMessage{}
	if raw, ok := top["hooks"]; ok {
		if err := json.Unmarshal(raw, &hooks); err != nil {
			return nil, fmt.Errorf("%s: \"hooks\" is not an object of event names to lists of groups: %v", name, err)
		}
	}
	ours := map[string]bool{}
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				ours[h.line()] = true
			}
		}
	}
	for event, groups := range hooks {
		hooks[event] = slices.DeleteFunc(groups, func(raw json.RawMessage) bool {
			var g Group
			if json.Unmarshal(raw, &g) != nil || len(g.Hooks) == 0 {
				return false
			}
			for _, h := range g.Hooks {
				if !ours[h.line()] {
					return false
				}
			}
			return true
		})
	}
	for event, groups := range s.Hooks {
		for _, g := range groups {
			raw, err := json.Marshal(g)
			if err != nil {
				return nil, err
			}
			hooks[event] = append(hooks[event], raw)
		}
	}
	raw, err := json.Marshal(hooks)
	if err != nil {
		return nil, err
	}
	top["hooks"] = raw
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// jsonError says where in data a JSON error is, as file:line:col.
func jsonError(name string, data []byte, err error) error {
	var off int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset - 1 // the offending byte
	case errors.As(err, &typ):
		off = max(typ.Offset-1, 0)
		err = errors.New("want a JSON object")
	default:
		return fmt.Errorf("%s: %v", name, err)
	}
	line, col := 1, 1
	for _, c := range data[:min(max(int(off), 0), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%s:%d:%d: %v", name, line, col, err)
}
