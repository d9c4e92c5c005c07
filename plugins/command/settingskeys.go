package command

import "github.com/hookflow/hookflow/plugins/command/settings"

// The settings keys of the hook runtime: failure rules, and (in the
// files of each hook type) what else a hook definition holds.

// failureRule reads "onFailure" (a rule's name) or "failClosed" (true is
// RuleClosed, false RuleAgent) into h; the two must agree when both are
// given.
func (d *decoder) failureRule(path, key string, v *node, h *settings.Hook) {
	var r settings.FailureRule
	switch key {
	case "failClosed":
		r = settings.RuleAgent
		if d.boolean(path, v) {
			r = settings.RuleClosed
		}
		if v.kind != 'b' {
			return
		}
	default:
		var p settings.FailureRule
		if err := p.UnmarshalText([]byte(d.str(path, v))); err != nil {
			if v.kind == '"' {
				d.fail(path, v.off, "%v", err)
			}
			return
		}
		r = p
	}
	if h.OnFailure != settings.RuleDefault && h.OnFailure != r {
		d.fail(path, v.off, "says %s, and the hook's other failure key says %s: keep one", r, h.OnFailure)
		return
	}
	h.OnFailure = r
}

// toolNames reads a hook's "toolNames": {"tool": {"name": "Bash",
// "arguments": {"cmd": "command"}}}.
func (d *decoder) toolNames(path string, n *node) settings.ToolNames {
	if n.kind != '{' {
		d.fail(path, n.off, `must be an object {"<server tool>": {"name": "<script's name>", "arguments": {...}}}, not %s`, n.kindName())
		return nil
	}
	m := settings.ToolNames{}
	for i, tool := range n.keys {
		tp, v := path+"."+tool, n.vals[i]
		d.src.offs[tp] = n.koff[i]
		if v.kind != '{' {
			d.fail(tp, v.off, `must be an object {"name": ..., "arguments": {...}}, not %s`, v.kindName())
			continue
		}
		var tn settings.ToolName
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
	for _, pr := range checkToolNames(m) {
		d.fail(path+"."+pr.path, n.off, "%s", pr.msg)
	}
	return m
}
