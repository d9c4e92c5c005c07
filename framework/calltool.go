package framework

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// CallTool calls the tool named name of s with args (a JSON object, or
// nil for none) as a call of the client whose request c runs for: the
// tool's own tools:call-tool flow runs, with every hook, plugin and
// visibility rule where the tool is, for c's session, with its client's
// info and token, under ctx (c.Context(), or a context made from it that
// carries what the caller's hooks read back). It is how a hook consults
// another tool of its server: in a gateway, an upstream's tool, mounted
// as a tool of the gateway's server, runs through the gateway's plugins
// (auth, redaction, limits) as a client's call would.
//
// The result is the tool's, as a client would read it: a call that a
// hook blocked or a tool that failed is a result with IsError set. The
// error is a protocol error: an unknown tool, one hidden from c's client
// or one not yet served. The call is a request of its own, with its own
// request ID; the client's progress token is not passed on. Nothing
// stops a tool's hook from calling the tool it guards: a caller that may
// loop carries its chain of calls in ctx and stops there.
func (s *Server) CallTool(ctx context.Context, c *flows.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	e := s.index.Load().tools[name]
	if e == nil || !e.served.Load() || e.call == nil {
		return nil, unknownTool(name)
	}
	params := &mcp.CallToolParamsRaw{Name: name, Arguments: args}
	req := &mcp.CallToolRequest{Params: params}
	if c != nil {
		r := c.Request()
		req.Session = r.Session
		if r.SDK != nil {
			req.Extra = r.SDK.GetExtra()
			if p := r.SDK.GetParams(); !isNilParams(p) {
				// The client's info, capabilities and protocol version
				// of a request without initialize; not its progress
				// token, which names the client's own call.
				meta := maps.Clone(p.GetMeta())
				delete(meta, "progressToken")
				params.Meta = meta
			}
		}
	}
	return e.call(ctx, req)
}
