package settings

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
