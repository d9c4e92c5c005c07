package command

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// mcpToolKind is a hook that calls a tool of an MCP server: "type":
// "mcp_tool". The tool is one of this server's (in a gateway, an
// upstream's, mounted under its prefix), called through its own flow
// for the client whose call the hook runs for; the text of its answer is
// read as a command hook's stdout.
type mcpToolKind struct{}

// mcpCall is what an mcp_tool hook calls.
type mcpCall struct {
	// target is the tool's name on this server: the server's prefix and
	// the hook's tool, set at Attach ("" for a server not mapped, which
	// fails Start).
	target string
	input  map[string]any
	// fixed is the input as sent, encoded once at Attach, when it has no
	// placeholder: a call then needs no decoding of the event.
	fixed json.RawMessage
	// send is the hook's sendArguments: its input may name the call's
	// data.
	send bool
	// lenient is set for a hook of a lenient import: a server or tool
	// Start does not find leaves it out, with a warning, instead of
	// failing Start.
	lenient bool
	// skip is set when Start left the hook out so.
	skip bool
}

// placeholder is a ${path} of an mcp_tool hook's input.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_.-]+)\}`)

// metaFields are the fields of the event's JSON an mcp_tool hook's input
// may name without sendArguments: they say which call it is, not what
// it carries.
var metaFields = []string{"hook_event_name", "tool_name", "cwd", "session_id", "transcript_path", "permission_mode", "tool_use_id"}

// compile checks an mcp_tool hook's server, tool and input; Attach maps
// the server to this server's tools (see [Config.MCPServers]), and Start
// checks the tool is there.
func (mcpToolKind) compile(cp *compiler, s *site, p *problems) *compiled {
	h := s.hook
	h.SendArguments = h.SendArguments || names(s.src.opts.sendArgs, h, s.path)
	remoteChecks(h, p)
	if h.URL != "" || len(h.Headers) > 0 || len(h.AllowedEnvVars) > 0 || h.Prompt != "" || h.Model != "" {
		p.bad("url", "an mcp_tool hook has no url, headers, allowedEnvVars, prompt or model")
	}
	if h.Server == "" {
		p.bad("server", "is missing: an mcp_tool hook names the MCP server of its tool")
	}
	if h.Tool == "" {
		p.bad("tool", "is missing: an mcp_tool hook names the tool it calls")
	}
	if h.Input == nil {
		p.bad("input", `is missing: an mcp_tool hook gives its tool's arguments, an object ({} for none)`)
	}
	paths := placeholders(h.Input)
	for _, path := range paths {
		first, _, _ := strings.Cut(path, ".")
		if !h.SendArguments && !slices.Contains(metaFields, first) {
			p.bad("input", "names ${%s}, the call's own data, which would go to %s/%s: set \"sendArguments\": true, or name the hook in its import's send_arguments, to send it", path, h.Server, h.Tool)
			break
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	m := &mcpCall{input: h.Input, send: h.SendArguments, lenient: s.src.opts.lenient}
	in, _ := json.Marshal(h.Input)
	if len(paths) == 0 {
		m.fixed = in
	}
	line := string(in)
	if m.send {
		line += ", sending the call's data (sendArguments)"
	}
	c := s.compiled()
	c.mcp = m
	c.Protocol, c.Name = settings.Claude, cmp.Or(h.Name, h.Type)
	c.Command = fmt.Sprintf("mcp_tool %s/%s with %s", h.Server, h.Tool, line)
	def, _ := json.Marshal([]any{"mcp_tool", h.Server, h.Tool, h.Input, m.send})
	sum := sha256.Sum256(def)
	c.Identity = trust.Identity{Form: trust.FormMCPTool, Script: "mcp_tool:" + h.Server + "/" + h.Tool, Line: line, SHA256: hex.EncodeToString(sum[:])}
	if cp.store != nil {
		c.Trust = cp.store.Status(c.Identity)
	}
	return c
}

// target returns the name on this server of the tool an mcp_tool hook
// names: the server's prefix ([Config.MCPServers], "" for
// [Config.ServerName]) and the tool. ok is false for another server.
func (c Config) target(server, tool string) (name string, ok bool) {
	prefix, ok := c.MCPServers[server]
	if !ok && server == c.ServerName {
		prefix, ok = "", true
	}
	return prefix + tool, ok
}

// WithUpstreams returns c with prefixes, a gateway's upstreams by name
// each mapped to the prefix of its tools, as the default of
// [Config.MCPServers]: a name MCPServers maps, or ServerName, keeps its
// own mapping. The hookflow gateway's host calls it with every upstream
// of its file, so that an mcp_tool hook reaches an upstream by the
// upstream's name without mcp_servers; c itself is not changed.
func (c Config) WithUpstreams(prefixes map[string]string) Config {
	m := maps.Clone(c.MCPServers)
	for name, prefix := range prefixes {
		if _, set := m[name]; set || name == "" || name == c.ServerName {
			continue
		}
		if m == nil {
			m = make(map[string]string, len(prefixes))
		}
		m[name] = prefix
	}
	c.MCPServers = m
	return c
}

// placeholders returns the paths of the ${path} placeholders in v's
// strings, in no particular order.
func placeholders(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			out = append(out, placeholders(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, placeholders(e)...)
		}
	case string:
		for _, m := range placeholder.FindAllStringSubmatch(v, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// run calls the hook's tool with its input filled in from the event, and
// reads the text of the answer as a command hook's stdout (exit 0). A
// loop is refused before the call: the tool is the one this call is for,
// or one whose call is already waiting on this hook's.
func (mcpToolKind) run(h *hook, c *flows.Context, stdin []byte) (decision, error) {
	var none decision
	m := h.mcp
	if m.skip {
		return none, nil
	}
	guarded := ""
	if ent := c.Entity(); ent != nil && ent.Kind == flows.EntityTool {
		guarded = ent.Name
	}
	ch := chainOf(c.Context())
	next := ch.with(guarded)
	if next.has(m.target) {
		next.loop.Store(true)
		return none, h.fail(c, FailLoop, fmt.Sprintf("calls %s, whose call is already waiting on it (%s → %s): a loop", m.target, strings.Join(next.tools, " → "), m.target))
	}
	args, err := m.arguments(stdin)
	if err != nil {
		return none, h.fail(c, FailStart, "filling in its input: "+err.Error())
	}
	ctx, done, err := h.start(c)
	if err != nil {
		return none, err
	}
	defer done()
	res, err := h.p.srv.CallTool(withChain(ctx, next), c, m.target, args)
	switch {
	case next.loop.Load():
		return none, h.fail(c, FailLoop, fmt.Sprintf("its call of %s came back to a tool already waiting on it: a loop", m.target))
	case context.Cause(ctx) == errHookTimeout:
		return none, h.fail(c, FailTimeout, fmt.Sprintf("%s did not answer within the hook's timeout of %v", m.target, h.proc.Timeout))
	case c.Context().Err() != nil:
		return none, h.fail(c, FailCanceled, "the request was cancelled while the hook called "+m.target)
	case isClosed(h.p.shutdown):
		return none, h.fail(c, FailShutdown, "the server is shutting down")
	case err != nil:
		return none, h.fail(c, FailStart, "calling "+m.target+": "+err.Error())
	}
	return h.toolAnswer(c, res)
}

// toolAnswer reads a tool's result as the hook's stdout: the text of its
// text content, joined by newlines.
func (h *hook) toolAnswer(c *flows.Context, res *mcp.CallToolResult) (decision, error) {
	var out bytes.Buffer
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			out.WriteString(tc.Text)
		}
		if out.Len() > h.proc.MaxOutput {
			return decision{}, h.fail(c, FailOutputCap, fmt.Sprintf("%s answered with more than %d bytes", h.mcp.target, h.proc.MaxOutput))
		}
	}
	r := &sandbox.Result{Stdout: out.Bytes()}
	if res.IsError {
		r.Stderr = out.Bytes()
		return decision{}, h.fail(c, FailToolError, h.mcp.target+" answered with an error", r)
	}
	return h.decode(c, r)
}

// arguments returns the tool's arguments: the hook's input, each
// placeholder filled in from the event's JSON.
func (m *mcpCall) arguments(event []byte) (json.RawMessage, error) {
	if m.fixed != nil {
		return m.fixed, nil
	}
	var ev map[string]any
	dec := json.NewDecoder(bytes.NewReader(event))
	dec.UseNumber()
	if err := dec.Decode(&ev); err != nil {
		return nil, err
	}
	return json.Marshal(fillInput(m.input, ev))
}

// fillInput returns v with its placeholders filled in from ev: a string that
// is one placeholder becomes the value at its path (of any type; null
// when there is none), a placeholder inside a longer string its text.
func fillInput(v any, ev map[string]any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = fillInput(e, ev)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = fillInput(e, ev)
		}
		return out
	case string:
		if m := placeholder.FindStringSubmatch(v); m != nil && m[0] == v {
			return lookup(ev, m[1])
		}
		return placeholder.ReplaceAllStringFunc(v, func(s string) string {
			switch x := lookup(ev, s[2:len(s)-1]).(type) {
			case nil:
				return ""
			case string:
				return x
			default:
				b, _ := json.Marshal(x)
				return string(b)
			}
		})
	}
	return v
}

// lookup returns the value at a dotted path of ev, nil when there is none.
func lookup(ev map[string]any, path string) any {
	var v any = ev
	for _, k := range strings.Split(path, ".") {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}
