package main

import (
	"fmt"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// outcomePlugin tells, in finally, how every tool call ended and which hook
// decided it: what an operator asks first when a call was blocked.
// Reports go to report when it is set, else to the server's logger.
type outcomePlugin struct {
	report func(string)
}

func (*outcomePlugin) Name() string { return "outcome" }

func (o *outcomePlugin) Attach(p *framework.PluginContext) error {
	return p.Hook(scope.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "report", Fn: func(c *flows.Context) error {
		var msg string
		switch {
		case c.Err() != nil && c.DecidedBy() != "":
			msg = fmt.Sprintf("%s blocked by %s: %s", c.Entity().Name, c.DecidedBy(), flows.Reason(c.Err()))
		case c.Err() != nil:
			msg = fmt.Sprintf("%s failed: %s", c.Entity().Name, flows.Reason(c.Err()))
		case c.Responded():
			msg = fmt.Sprintf("%s answered early by %s", c.Entity().Name, c.DecidedBy())
		default:
			msg = c.Entity().Name + " succeeded"
		}
		if o.report != nil {
			o.report(msg)
		} else {
			c.Logger().Info("quickstart: " + msg)
		}
		return nil
	}})
}
