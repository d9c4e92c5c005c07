package guidance

// Delivery with a prompt's gets and a resource's reads.

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// promptGuidance runs in prompts:get-prompt afterExecute: the prompt's
// start guidance becomes a message before the prompt's own, its end
// guidance one after them, both of the configured role.
func (p *Plugin) promptGuidance(c *flows.Context) error {
	t := p.points()
	name := c.Entity().Name
	start, end := t.prompts.at(name, Start), t.prompts.at(name, End)
	if start.empty() && end.empty() {
		return nil
	}
	res := flows.As[flows.PromptGet](c).Result()
	if res == nil {
		return nil
	}
	features := FeaturesOf(c.Request().ClientCapabilities)
	out := *res
	out.Messages = nil
	add := func(pt *point) {
		comp := p.compose(pt, features)
		p.report(c.Context(), c.Session(), comp, false)
		if comp.Content != "" {
			out.Messages = append(out.Messages, &mcp.PromptMessage{Role: p.cfg.Role, Content: &mcp.TextContent{Text: comp.Content}})
		}
	}
	add(start)
	out.Messages = append(out.Messages, res.Messages...)
	add(end)
	c.SetOutput(&out)
	return nil
}

// resourceGuidance runs in resources:read-resource afterExecute: the
// resource's start and end guidance are appended to its contents, as
// text/markdown contents of the read URI marked with _meta
// {"hookflow/guidance": "start" or "end"}, after the resource's own (a
// client that reads the first contents gets the resource).
func (p *Plugin) resourceGuidance(c *flows.Context) error {
	t := p.points()
	name := c.Entity().Name
	start, end := t.resources.at(name, Start), t.resources.at(name, End)
	if start.empty() && end.empty() {
		return nil
	}
	v := flows.As[flows.ResourceRead](c)
	res := v.Result()
	if res == nil {
		return nil
	}
	features := FeaturesOf(c.Request().ClientCapabilities)
	out := *res
	out.Contents = slices.Clip(res.Contents)
	for _, at := range [...]struct {
		l  Lifecycle
		pt *point
	}{{Start, start}, {End, end}} {
		comp := p.compose(at.pt, features)
		p.report(c.Context(), c.Session(), comp, false)
		if comp.Content != "" {
			out.Contents = append(out.Contents, &mcp.ResourceContents{URI: v.URI(), MIMEType: "text/markdown", Text: comp.Content,
				Meta: mcp.Meta{MetaKey: at.l.String()}})
		}
	}
	c.SetOutput(&out)
	return nil
}

// MetaKey marks the contents the plugin adds to a resource read, in their
// _meta; its value is the lifecycle, "start" or "end".
const MetaKey = "hookflow/guidance"
