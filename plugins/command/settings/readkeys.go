package settings

import "fmt"

// The settings keys of the hook runtime: failure rules, and (in the
// files of each hook type) what else a hook definition holds.

// failureRule reads "onFailure" (a rule's name) or "failClosed" (true is
// RuleClosed, false RuleAgent) into h; the two must agree when both are
// given.
func (d *decoder) failureRule(path, key string, v *node, h *Hook) {
	var r FailureRule
	switch key {
	case "failClosed":
		r = RuleAgent
		if d.boolean(path, v) {
			r = RuleClosed
		}
		if v.kind != 'b' {
			return
		}
	default:
		var p FailureRule
		if err := p.UnmarshalText([]byte(d.str(path, v))); err != nil {
			if v.kind == '"' {
				d.fail(path, v.off, "%v", err)
			}
			return
		}
		r = p
	}
	if h.OnFailure != RuleDefault && h.OnFailure != r {
		d.fail(path, v.off, "says %s, and the hook's other failure key says %s: keep one", r, h.OnFailure)
		return
	}
	h.OnFailure = r
}

// toolNames reads a hook's "toolNames": {"tool": {"name": "Bash",
// "arguments": {"cmd": "command"}}}.
func (d *decoder) toolNames(path string, n *node) ToolNames {
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"<server tool>": {"name": "<script's name>", "arguments": {...}}}, not %s`, n.kindName())
		return nil
	}
	m := ToolNames{}
	for i, tool := range n.keys {
		tp, v := path+"."+tool, n.vals[i]
		d.src.offs[tp] = n.koff[i]
		if v.kind != '{' {
			d.fail(tp, v.off, `must be an object {"name": ..., "arguments": {...}}, not %s`, v.kindName())
			continue
		}
		var tn ToolName
		for j, key := range v.keys {
			kp, kv := tp+"."+key, v.vals[j]
			d.src.offs[kp] = kv.off
			switch key {
			case "name":
				tn.Name = d.str(kp, kv)
			case "arguments":
				tn.Arguments = d.env(kp, kv)
			default:
				d.unknown(kp, v.koff[j], key, []string{"name", "arguments"})
			}
		}
		m[tool] = tn
	}
	for _, pr := range m.Check() {
		d.fail(path+"."+pr.Path, n.off, "%s", pr.Msg)
	}
	return m
}

// remote reads the keys of http and prompt hooks.
func (d *decoder) remote(path, key string, v *node, r *Hook) {
	switch key {
	case "url":
		r.URL = d.str(path, v)
	case "prompt":
		r.Prompt = d.str(path, v)
	case "model":
		r.Model = d.str(path, v)
	case "headers":
		r.Headers = d.env(path, v)
	case "allowedEnvVars":
		if names, ok := decodeArray(d, path, v, "variable names", d.str); ok {
			r.AllowedEnvVars = append(r.AllowedEnvVars, names...)
		}
	}
}

// mcpTool reads the keys of mcp_tool hooks: server and tool (strings),
// input (an object) and hookflow's sendArguments.
func (d *decoder) mcpTool(path, key string, v *node, h *Hook) {
	switch key {
	case "server":
		h.Server = d.str(path, v)
	case "tool":
		h.Tool = d.str(path, v)
	case "sendArguments":
		h.SendArguments = d.boolean(path, v)
	default:
		if v.kind != '{' {
			d.fail(path, v.off, "must be an object of the tool's arguments, not %s", v.kindName())
			return
		}
		h.Input, _ = v.value().(map[string]any)
	}
}

// agentKey reads the keys of a hook that hookflow takes from the agents
// as they are, or ignores, or refuses, each for a reason a server has:
//
//   - statusMessage (shown while the hook runs), commandWindows (Codex's
//     command on Windows) and additionalContextLimit (Codex's cap, in
//     its model's tokens, on the context a hook adds) are read and
//     ignored: a server shows no status, runs on no Windows, and counts
//     no tokens (maxOutputBytes bounds a hook's whole output);
//   - continueOnBlock (Claude Code: a block feeds the reason back and
//     the turn goes on) is read and changes nothing: a server's block
//     ends one call, never a turn;
//   - async, once and asyncRewake are refused when true: a server's
//     hook runs for every matching call and takes part in its outcome,
//     and there is no idle model to wake;
//   - shell (a boolean, or "bash" or "powershell") and args (the exec
//     form) are the hook's.
func (d *decoder) agentKey(path, key string, v *node, h *Hook) {
	switch key {
	case "statusMessage", "commandWindows":
		d.str(path, v)
	case "additionalContextLimit":
		d.integer(path, v)
	case "continueOnBlock":
		d.boolean(path, v)
	case "async", "once", "asyncRewake":
		if d.boolean(path, v) {
			why := "a server's command hook runs for every matching call and takes part in its outcome"
			if key == "asyncRewake" {
				why += "; it has no idle model to wake"
			}
			d.fail(path, v.off, "is not supported: %s", why)
		}
	case "shell":
		h.Shell = d.shell(path, v)
	case "args":
		if args, ok := decodeArray(d, path, v, "strings", d.str); ok {
			h.Args = args
		}
	}
}

// shell reads "shell": true ("bash"), false (""), or the agent's string,
// "bash" or "powershell".
func (d *decoder) shell(path string, n *node) string {
	switch {
	case n.kind == 'b' && n.b:
		return "bash"
	case n.kind == 'b':
		return ""
	case n.kind == '"' && (n.str == "bash" || n.str == "powershell"):
		return n.str
	}
	d.fail(path, n.off, `must be "bash", "powershell", true or false, not %s`, describe(n))
	return ""
}

// describe names n for a message: a string by its value, else its kind.
func describe(n *node) string {
	if n.kind == '"' {
		return fmt.Sprintf("%q", n.str)
	}
	return n.kindName()
}
