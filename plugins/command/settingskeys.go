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
