package command

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
		p, err := ParseFailureRule(d.str(path, v))
		if err != nil {
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
	for _, pr := range m.check() {
		d.fail(path+"."+pr.path, n.off, "%s", pr.msg)
	}
	return m
}
