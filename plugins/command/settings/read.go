package settings

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookflow/hookflow/internal/suggest"
)

// File is an agent's settings file as read: its "hooks" object and
// where each of their paths (such as "hooks.PreToolUse[0].hooks[1].timeout")
// lies in it, so that a problem found later can say file:line:col.
type File struct {
	// Path is the file's absolute path; "" for settings that come from
	// no file (a Go value), whose problems are told by path alone.
	Path string
	// Agent is the agent the file is written for: the one asked for, or
	// the one [AgentAuto] detected.
	Agent Agent
	// Hooks are the file's hooks, those with problems left out.
	Hooks Settings
	// Disabled is a GitHub Copilot file's "disableAllHooks": true, which
	// skips every hook of the file.
	Disabled bool

	data []byte
	offs map[string]int
	// bad are the paths the decoder found a problem at.
	bad []string
}

// Errorf returns a problem at path in f, at the line and column of the
// path or of the nearest of its parents that the file holds.
func (f *File) Errorf(path, format string, args ...any) *ConfigError {
	e := &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
	if f != nil && f.Path != "" {
		e.File = f.Path
		off, ok := f.offs[path]
		for p := path; !ok && p != ""; {
			p = parentPath(p)
			off, ok = f.offs[p]
		}
		e.Line, e.Col = lineCol(f.data, off)
	}
	return e
}

// Bad reports whether path (a group, such as "hooks.PreToolUse[0]", or a
// hook, "hooks.PreToolUse[0].hooks[1]") holds a problem ReadFile found,
// its hooks' problems aside: a group with a bad hook keeps its other
// hooks; a group with a bad matcher is bad whole.
func (f *File) Bad(path string) bool {
	for _, b := range f.bad {
		if strings.HasPrefix(b, path+".hooks[") && !strings.Contains(path, ".hooks[") {
			continue // a hook's problem: the hook is bad, not its group
		}
		if b == path || strings.HasPrefix(b, path+".") || strings.HasPrefix(b, path+"[") {
			return true
		}
	}
	return false
}

// parentPath strips the last element of a settings path.
func parentPath(p string) string {
	i := max(strings.LastIndexByte(p, '.'), strings.LastIndexByte(p, '['))
	if i < 0 {
		return ""
	}
	return p[:i]
}

// maxSettingsBytes bounds a settings file.
const maxSettingsBytes = 4 << 20

// ReadFile reads the "hooks" object of an agent's settings file, written
// for agent (AgentAuto: detected). A file that is no JSON object of hooks
// is an error and no File; a file that is has a File, and the problems
// of its entries are [*ConfigError] values joined, in the file's order:
// the File's Hooks leave out what they are at (see [File.Bad]).
func ReadFile(path string, agent Agent) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading hook settings: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(fd, maxSettingsBytes+1))
	fd.Close()
	if err != nil {
		return nil, fmt.Errorf("reading hook settings: %w", err)
	}
	if len(data) > maxSettingsBytes {
		return nil, fmt.Errorf("hook settings %s: more than the %d bytes a settings file may have", path, maxSettingsBytes)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	f := &File{Path: path, Agent: agent, data: data, offs: map[string]int{}}
	root, err := parseJSON(data)
	if err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			line, col := lineCol(data, pe.off)
			return nil, &ConfigError{File: path, Line: line, Col: col, Msg: pe.msg}
		}
		return nil, err
	}
	if f.Agent == AgentAuto {
		f.Agent = detectAgent(path, root)
	}
	d := &decoder{src: f}
	f.Hooks = d.settings(root)
	return f, errors.Join(d.errs...)
}

// decoder turns a positioned JSON tree into Settings, collecting every
// problem.
type decoder struct {
	src  *File
	errs []error
}

func (d *decoder) fail(path string, off int, format string, args ...any) {
	d.src.offs[path] = off
	d.src.bad = append(d.src.bad, path)
	d.errs = append(d.errs, d.src.Errorf(path, format, args...))
}

func (d *decoder) mark(path string, n *node) { d.src.offs[path] = n.off }

func (d *decoder) settings(root *node) Settings {
	if root.kind != '{' {
		d.fail("", root.off, "the settings must be a JSON object, not %s", root.kindName())
		return nil
	}
	if d.src.Agent == AgentCopilot {
		return d.copilotFile(root)
	}
	hooks := root.get("hooks")
	if hooks == nil {
		d.fail("", root.off, `no "hooks" object: hook settings are {"hooks": {"PreToolUse": [...], ...}}`)
		return nil
	}
	return d.events(hooks, "matcher groups", d.group)
}

// events reads a file's "hooks" object: each event's array of what (the
// agents' matcher groups, or Copilot's entries), each read by elem.
func (d *decoder) events(hooks *node, what string, elem func(path string, n *node) Group) Settings {
	d.mark("hooks", hooks)
	if hooks.kind != '{' {
		d.fail("hooks", hooks.off, "must be an object of events, not %s", hooks.kindName())
		return nil
	}
	s := Settings{}
	for i, key := range hooks.keys {
		path := "hooks." + key
		d.src.offs[path] = hooks.koff[i]
		if groups, ok := decodeArray(d, path, hooks.vals[i], what, elem); ok {
			s[key] = groups
		}
	}
	return s
}

func (d *decoder) group(path string, n *node) Group {
	d.mark(path, n)
	var g Group
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"matcher": ..., "hooks": [...]}, not %s`, n.kindName())
		return g
	}
	for i, key := range n.keys {
		v, kp := n.vals[i], path+"."+key
		d.src.offs[kp] = v.off
		switch key {
		case "matcher":
			g.Matcher = d.str(kp, v)
		case "hooks":
			if hooks, ok := decodeArray(d, kp, v, "hooks", d.hook); ok {
				g.Hooks = append(g.Hooks, hooks...)
			}
		case "sequential":
			// Gemini CLI's flag: hookflow always runs a group in order.
			d.boolean(kp, v)
		default:
			d.unknown(kp, n.koff[i], key, []string{"matcher", "hooks", "sequential"})
		}
	}
	return g
}

var hookKeys = []string{"type", "command", "timeout", "name", "protocol", "onFailure", "maxConcurrent",
	"rateLimit", "cooldown", "env", "maxOutputBytes", "statusMessage", "async", "once", "shell", "description",
	"if", "runner", "failClosed", "toolNames", "url", "headers", "allowedEnvVars", "prompt", "model",
	"args", "asyncRewake", "continueOnBlock", "commandWindows", "additionalContextLimit",
	"server", "tool", "input", "sendArguments"}

func (d *decoder) hook(path string, n *node) Hook {
	d.mark(path, n)
	var h Hook
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"type": "command", "command": ...}, not %s`, n.kindName())
		return h
	}
	if n.get("type") == nil {
		d.fail(path, n.off, `no "type": a command hook has "type": "command"`)
	}
	ms := d.src.Agent == AgentGemini
	for i, key := range n.keys {
		v, kp := n.vals[i], path+"."+key
		d.src.offs[kp] = v.off
		switch key {
		case "type":
			if h.Type = d.str(kp, v); h.Type == "" && v.kind == '"' {
				d.fail(kp, v.off, `must be "command", "http", "prompt" or "mcp_tool"`)
			}
		case "command":
			h.Command = d.str(kp, v)
		case "timeout":
			if ms {
				// Gemini CLI writes timeouts in milliseconds.
				h.Timeout = d.seconds(kp, v) / 1000
			} else {
				h.Timeout = d.seconds(kp, v)
			}
		case "protocol":
			var p Protocol
			if err := p.UnmarshalText([]byte(d.str(kp, v))); err != nil && v.kind == '"' {
				d.fail(kp, v.off, "%v", err)
			}
			h.Protocol = p
		case "url", "headers", "allowedEnvVars", "prompt", "model":
			d.remote(kp, key, v, &h)
		case "server", "tool", "input", "sendArguments":
			d.mcpTool(kp, key, v, &h)
		case "env":
			h.Env = d.env(kp, v)
		case "statusMessage", "async", "once", "asyncRewake", "continueOnBlock", "commandWindows",
			"additionalContextLimit", "shell", "args":
			d.agentKey(kp, key, v, &h)
		case "if":
			h.If = d.str(kp, v)
		default:
			if !d.ownKey(kp, key, v, &h) {
				d.unknown(kp, n.koff[i], key, hookKeys)
			}
		}
	}
	return h
}

// ownKeys are hookflow's own keys of a hook, read in every agent's
// format by ownKey.
var ownKeys = []string{"name", "onFailure", "failClosed", "toolNames", "maxConcurrent", "maxOutputBytes",
	"cooldown", "rateLimit", "runner", "description"}

// ownKey reads one of ownKeys into h, and reports whether key is one.
func (d *decoder) ownKey(kp, key string, v *node, h *Hook) bool {
	switch key {
	case "name":
		h.Name = d.str(kp, v)
	case "onFailure", "failClosed":
		d.failureRule(kp, key, v, h)
	case "toolNames":
		h.ToolNames = d.toolNames(kp, v)
	case "maxConcurrent":
		h.MaxConcurrent = d.integer(kp, v)
	case "maxOutputBytes":
		h.MaxOutputBytes = d.integer(kp, v)
	case "cooldown":
		h.Cooldown = d.seconds(kp, v)
	case "rateLimit":
		h.RateLimit = d.rateLimit(kp, v)
	case "runner":
		h.Runner = d.boolean(kp, v)
	case "description":
		h.Description = d.str(kp, v)
	default:
		return false
	}
	return true
}

func (d *decoder) unknown(path string, off int, key string, known []string) {
	hint := ""
	if s, ok := suggest.Closest(key, known); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	d.fail(path, off, "unknown key %q%s", key, hint)
}

// decodeArray decodes n, at path, as an array of what, each element by
// elem at path[i]; an n that is no array is a failure, and ok is false.
func decodeArray[T any](d *decoder, path string, n *node, what string, elem func(path string, n *node) T) (out []T, ok bool) {
	if n.kind != '[' {
		d.fail(path, n.off, "must be an array of %s, not %s", what, n.kindName())
		return nil, false
	}
	out = make([]T, 0, len(n.vals))
	for i, v := range n.vals {
		out = append(out, elem(fmt.Sprintf("%s[%d]", path, i), v))
	}
	return out, true
}

func (d *decoder) str(path string, n *node) string {
	if n.kind != '"' {
		d.fail(path, n.off, "must be a string, not %s", n.kindName())
		return ""
	}
	return n.str
}

func (d *decoder) boolean(path string, n *node) bool {
	if n.kind != 'b' {
		d.fail(path, n.off, "must be true or false, not %s", n.kindName())
		return false
	}
	return n.b
}

func (d *decoder) integer(path string, n *node) int {
	if n.kind != '0' {
		d.fail(path, n.off, "must be a number, not %s", n.kindName())
		return 0
	}
	i, err := n.num.Int64()
	if err != nil || i < 0 || i > math.MaxInt32 {
		d.fail(path, n.off, "must be a whole number from 0 to %d, got %s", math.MaxInt32, n.num)
		return 0
	}
	return int(i)
}

// seconds reads a duration written in seconds, as the agents write
// timeouts; fractions are allowed.
func (d *decoder) seconds(path string, n *node) time.Duration {
	if n.kind != '0' {
		d.fail(path, n.off, "must be a number of seconds, not %s", n.kindName())
		return 0
	}
	f, err := n.num.Float64()
	unit, most := "seconds", 24*3600.0
	if d.src.Agent == AgentGemini && strings.HasSuffix(path, ".timeout") {
		unit, most = "milliseconds (Gemini CLI's unit)", most*1000
	}
	if err != nil || f <= 0 || f > most {
		d.fail(path, n.off, "must be a number of %s greater than 0 and at most %.0f, got %s", unit, most, n.num)
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

func (d *decoder) rateLimit(path string, n *node) RateLimit {
	var r RateLimit
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"calls": n, "per": seconds}, not %s`, n.kindName())
		return r
	}
	for i, key := range n.keys {
		v, kp := n.vals[i], path+"."+key
		d.src.offs[kp] = v.off
		switch key {
		case "calls":
			r.Calls = d.integer(kp, v)
		case "per":
			r.Per = d.seconds(kp, v)
		default:
			d.unknown(kp, n.koff[i], key, []string{"calls", "per"})
		}
	}
	return r
}

func (d *decoder) env(path string, n *node) map[string]string {
	if n.kind != '{' {
		d.fail(path, n.off, "must be an object of strings, not %s", n.kindName())
		return nil
	}
	env := make(map[string]string, len(n.keys))
	for i, key := range n.keys {
		kp := path + "." + key
		d.src.offs[kp] = n.koff[i]
		env[key] = d.str(kp, n.vals[i])
	}
	return env
}
