package sessiongate

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// unlister is the plugin Config.Unlist attaches next to the gate, named
// "sessiongate-unlist": a framework.Visibility that leaves a gated tool
// out of tools/list while the caller's session has not reached the state
// its calls need.
type unlister struct{ p *Plugin }

// unlister is a framework.Plugin and a framework.Visibility: a Visible
// method of the wrong shape fails to compile here rather than at Use.
var (
	_ framework.Plugin     = unlister{}
	_ framework.Visibility = unlister{}
)

func (unlister) Name() string                          { return Name + "-unlist" }
func (unlister) Attach(*framework.PluginContext) error { return nil }

func (u unlister) Visible(r *flows.Request, e *flows.Entity) framework.Sight {
	p := u.p
	if e.Kind != flows.EntityTool {
		return framework.Shown
	}
	need, gated := p.need(e.Name)
	if !gated {
		return framework.Shown
	}
	if key := p.key(r); key != "" && p.peek.Peek(key) >= need {
		return framework.Shown
	}
	return framework.Unlisted
}
