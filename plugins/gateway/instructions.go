package gateway

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// instructions is the gateway's hook on initialize (and server/discover):
// the instructions the upstreams gave the gateway at initialization reach
// the client, each under a heading naming its upstream, after the
// server's own.
func (g *Gateway) instructions(c *flows.Context) error {
	res, ok := c.Output().(*mcp.InitializeResult)
	if !ok || res == nil {
		return nil
	}
	merged := g.mergeInstructions(res.Instructions)
	if merged == res.Instructions {
		return nil
	}
	out := *res
	out.Instructions = merged
	c.SetOutput(&out)
	return nil
}

// mergeInstructions returns own (the server's instructions) followed by
// each upstream's, in configuration order, under "## <name>" headings.
func (g *Gateway) mergeInstructions(own string) string {
	var b strings.Builder
	b.WriteString(own)
	for _, u := range g.ups {
		text := strings.TrimSpace(u.instructions())
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + u.cfg.Name + "\n\n" + text)
	}
	return b.String()
}

// instructions returns what the upstream's main session said at
// initialization to do with it.
func (u *upstream) instructions() string {
	u.mu.Lock()
	c := u.main
	u.mu.Unlock()
	if c == nil || c.CS == nil {
		return ""
	}
	if ir := c.CS.InitializeResult(); ir != nil {
		return ir.Instructions
	}
	return ""
}
