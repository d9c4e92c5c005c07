package settings

import (
	"fmt"
	"slices"

	"github.com/hookflow/hookflow/internal/suggest"
)

// GitHub Copilot's hook files (.github/hooks/*.json): {"version": 1,
// "disableAllHooks": false, "hooks": {"preToolUse": [entry…]}}, where
// each entry is one hook with its own optional "matcher", read here as
// a group of that one hook at the entry's path (hooks.preToolUse[0]).

// copilotEvents maps Copilot's camelCase event keys to hookflow's
// events; the keys that map to 0 are Copilot's events an MCP server has
// no counterpart for, skipped with a warning.
var copilotEvents = map[string]Event{
	"sessionStart": SessionStart, "userPromptSubmitted": UserPromptSubmit, "preToolUse": PreToolUse,
	"postToolUse": PostToolUse, "postToolUseFailure": PostToolUseFailure,
	"sessionEnd": 0, "errorOccurred": 0, "agentStop": 0, "subagentStart": 0, "subagentStop": 0,
	"preCompact": 0, "permissionRequest": 0, "notification": 0, "userPromptTransformed": 0,
}

// EventOf returns the event a settings key of agent's format names, as
// [Event.UnmarshalText] does: 0 and no error for an agent's event an MCP
// server has no counterpart for. A GitHub Copilot file's keys are its
// camelCase events; its PascalCase ones (Copilot's VS Code compatible
// form, with Claude Code's snake_case input) are refused.
func EventOf(agent Agent, key string) (Event, error) {
	if agent != AgentCopilot {
		var e Event
		err := e.UnmarshalText([]byte(key))
		return e, err
	}
	if e, ok := copilotEvents[key]; ok {
		return e, nil
	}
	var e Event
	if e.UnmarshalText([]byte(key)) == nil {
		return 0, fmt.Errorf("%q is the PascalCase form of a GitHub Copilot event, whose hooks read Claude Code's input and answer in Copilot's output: hookflow runs the camelCase events (preToolUse…) in Copilot's files; put hooks written for Claude Code's contract in a Claude Code settings file", key)
	}
	keys := make([]string, 0, len(copilotEvents))
	for k := range copilotEvents {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if sug, ok := suggest.Closest(key, keys); ok {
		return 0, fmt.Errorf("unknown event %q (did you mean %q?)", key, sug)
	}
	return 0, fmt.Errorf("unknown event %q", key)
}

var copilotTopKeys = []string{"version", "hooks", "disableAllHooks"}

// copilotFile reads a Copilot file's top level: "version" must be 1, and
// no key but version, hooks and disableAllHooks is allowed.
func (d *decoder) copilotFile(root *node) Settings {
	var hooks *node
	for i, key := range root.keys {
		v, kp := root.vals[i], key
		d.src.offs[kp] = v.off
		switch key {
		case "version":
			if v.kind == '0' && v.num.String() != "1" {
				d.fail(kp, v.off, "is %s: hookflow reads GitHub Copilot's hook files of version 1", v.num)
			} else if v.kind != '0' {
				d.fail(kp, v.off, "is %s: hookflow reads GitHub Copilot's hook files of version 1", describe(v))
			}
		case "disableAllHooks":
			d.src.Disabled = d.boolean(kp, v)
		case "hooks":
			hooks = v
		default:
			d.unknown(kp, root.koff[i], key, copilotTopKeys)
		}
	}
	if root.get("version") == nil {
		d.fail("version", root.off, `is missing: a GitHub Copilot hook file is {"version": 1, "hooks": {...}}`)
	}
	if hooks == nil {
		d.fail("hooks", root.off, `is missing: a GitHub Copilot hook file is {"version": 1, "hooks": {"preToolUse": [...], ...}}`)
		return nil
	}
	return d.events(hooks, "hook entries", d.copilotEntry)
}

var copilotKeys = append([]string{"type", "bash", "powershell", "command", "exec", "args", "cwd", "env",
	"timeoutSec", "timeout", "matcher", "url", "headers", "allowedEnvVars", "prompt"}, ownKeys...)

// copilotEntry reads one Copilot hook entry as a group of one hook.
func (d *decoder) copilotEntry(path string, n *node) Group {
	d.mark(path, n)
	var g Group
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"type": "command", "bash": ...}, not %s`, n.kindName())
		return g
	}
	h := Hook{Type: "command", Protocol: Copilot}
	var cmd copilotCommand
	for i, key := range n.keys {
		v, kp := n.vals[i], path+"."+key
		d.src.offs[kp] = v.off
		switch key {
		case "type":
			h.Type = d.str(kp, v)
			if h.Type == "prompt" {
				d.fail(kp, v.off, `is "prompt": a Copilot prompt hook submits its text as the user's prompt when a session starts, and a server has no user to type for`)
			} else if h.Type != "command" && h.Type != "http" && v.kind == '"' {
				d.fail(kp, v.off, `must be "command" or "http" (GitHub Copilot's hook types that a server runs), not %q`, h.Type)
			}
		case "bash", "powershell", "command", "exec":
			cmd.set(key, d.str(kp, v))
		case "args":
			cmd.hasArgs = true
			if args, ok := decodeArray(d, kp, v, "strings", d.str); ok {
				cmd.args = args
			}
		case "timeoutSec":
			h.Timeout, cmd.timeoutSec = d.seconds(kp, v), true
		case "timeout":
			if t := d.seconds(kp, v); !cmd.timeoutSec {
				h.Timeout = t // timeoutSec, when given, wins
			}
		case "cwd":
			h.Cwd = d.str(kp, v)
		case "env":
			h.Env = d.env(kp, v)
		case "matcher":
			g.Matcher = d.str(kp, v)
		case "url", "headers", "allowedEnvVars":
			d.remote(kp, key, v, &h)
		default:
			if !d.ownKey(kp, key, v, &h) {
				d.unknown(kp, n.koff[i], key, copilotKeys)
			}
		}
	}
	if h.Type == "command" {
		d.copilotCommand(path, n, cmd, &h)
	}
	g.Hooks = []Hook{h}
	return g
}

// copilotCommand is what a Copilot entry says to run.
type copilotCommand struct {
	bash, powershell, command, exec string
	has                             []string // the keys given, in order
	args                            []string
	hasArgs, timeoutSec             bool
}

func (c *copilotCommand) set(key, v string) {
	c.has = append(c.has, key)
	switch key {
	case "bash":
		c.bash = v
	case "powershell":
		c.powershell = v
	case "command":
		c.command = v
	case "exec":
		c.exec = v
	}
}

// copilotCommand sets h's command as Copilot runs it on a Unix host:
// "exec" with "args" runs a program without a shell; else "bash", else
// "command" (Copilot's cross-platform fallback), runs through bash; else
// "powershell" runs through pwsh. A powershell line next to a bash or
// command line is Windows', read and not run.
func (d *decoder) copilotCommand(path string, n *node, c copilotCommand, h *Hook) {
	switch {
	case c.exec != "" || slices.Contains(c.has, "exec"):
		if len(c.has) > 1 {
			d.fail(path+".exec", n.get("exec").off, "runs a program without a shell: do not combine it with bash, powershell or command")
			return
		}
		h.Command, h.Args = c.exec, c.args
		if h.Args == nil {
			h.Args = []string{}
		}
		return
	case c.hasArgs:
		d.fail(path+".args", n.get("args").off, `are the arguments of "exec": add exec, or write the command as one line`)
		return
	case c.bash != "":
		h.Command, h.Shell = c.bash, "bash"
	case c.command != "":
		h.Command, h.Shell = c.command, "bash"
	case c.powershell != "":
		h.Command, h.Shell = c.powershell, "powershell"
	case len(c.has) == 0:
		d.fail(path, n.off, `has no command: a Copilot command hook has "bash", "command", "powershell" or "exec"`)
	default:
		d.fail(path+"."+c.has[0], n.get(c.has[0]).off, "is empty")
	}
}
