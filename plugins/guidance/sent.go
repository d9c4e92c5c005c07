package guidance

// Delivery with what a tool call sends its client: progress guidance in
// progress notifications, running guidance in sampling requests.

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// progress runs in notifications:from-server beforeExecute: a progress
// notification sent during a tool call (by framework.Progress, the
// session's NotifyProgress, or an upstream server the gateway forwards)
// gets the call's progress guidance appended to its message; each
// progress hook of the tool, or tied to the request, goes out once, with
// the first notification sent after it applies.
func (p *Plugin) progress(c *flows.Context) error {
	v := flows.As[flows.ServerNotification](c)
	if v.Method() != "notifications/progress" {
		return nil
	}
	call := c.Parent()
	if call == nil || call.Flow() != flows.ToolsCallTool {
		return nil
	}
	r, ok := p.run.Get(call)
	if !ok {
		return nil
	}
	params, _ := v.Params().(*mcp.ProgressNotificationParams)
	if params == nil {
		return nil
	}
	r.mu.Lock()
	comp := p.composeRequest(r, call.Request().ID, Progress, func(h *Hook) bool { return r.progressed[h.ID()] })
	for _, s := range comp.Included {
		if r.progressed == nil {
			r.progressed = map[string]bool{}
		}
		r.progressed[s.ID] = true
	}
	r.mu.Unlock()
	if comp.Content == "" {
		return nil
	}
	p.report(c.Context(), call.Session(), comp, false)
	out := *params
	if out.Message != "" {
		out.Message += "\n\n"
	}
	out.Message += comp.Content
	v.SetParams(&out)
	return nil
}

// sampling runs in sampling:create-message beforeExecute: a sampling
// request a tool call makes carries the call's running guidance in its
// system prompt, after the tool's own.
func (p *Plugin) sampling(c *flows.Context) error {
	call := c.Parent()
	if call == nil || call.Flow() != flows.ToolsCallTool {
		return nil
	}
	r, ok := p.run.Get(call)
	if !ok {
		return nil
	}
	v := flows.As[flows.Sampling](c)
	params := v.Params()
	if params == nil {
		return nil
	}
	content := p.composeRequest(r, call.Request().ID, Running, nil).Content
	if content == "" {
		return nil
	}
	if params.SystemPrompt != "" {
		params.SystemPrompt += "\n\n"
	}
	params.SystemPrompt += content
	return nil
}
