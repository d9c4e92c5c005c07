package guidance

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// initialize appends the session's start guidance to the instructions of
// its initialize (or server/discover) result, composed for the
// capabilities the client declared.
func (p *Plugin) initialize(c *flows.Context) error {
	if p.cfg.NoInstructions {
		return nil
	}
	v := flows.As[flows.Initialize](c)
	var instructions *string
	caps := c.Request().ClientCapabilities
	hold := false
	switch res := c.Output().(type) {
	case *mcp.InitializeResult:
		if res == nil {
			return nil
		}
		instructions = &res.Instructions
		if params := v.Params(); params != nil {
			caps = params.Capabilities
		}
		// The client sets its log level after initializing.
		hold = true
	case *mcp.DiscoverResult:
		if res == nil {
			return nil
		}
		instructions = &res.Instructions
	default:
		return nil
	}
	comp := p.compose(p.points().session, FeaturesOf(caps))
	if comp.Content != "" {
		if *instructions != "" {
			*instructions += "\n\n"
		}
		*instructions += comp.Content
	}
	p.report(c.Context(), c.Session(), comp, hold)
	return nil
}

// welcome renders the welcome prompt: the session's start guidance, as
// one message of the configured role (none when no hook applies).
func (p *Plugin) welcome(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var caps *mcp.ClientCapabilities
	var ss *mcp.ServerSession
	if c := flows.FromContext(ctx); c != nil {
		caps, ss = c.Request().ClientCapabilities, c.Session()
	}
	comp := p.compose(p.points().session, FeaturesOf(caps))
	p.report(ctx, ss, comp, false)
	res := &mcp.GetPromptResult{Description: "Guidance for this session", Messages: []*mcp.PromptMessage{}}
	if comp.Content != "" {
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: p.cfg.Role, Content: &mcp.TextContent{Text: comp.Content}})
	}
	return res, nil
}
