package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/framework"
)

// listing is what an upstream serves.
type listing struct {
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
}

// list lists everything cs's server serves, following pages.
func list(ctx context.Context, cs *mcp.ClientSession) (listing, error) {
	var l listing
	caps := &mcp.ServerCapabilities{}
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	if caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return l, err
			}
			l.tools = append(l.tools, t)
		}
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return l, err
			}
			l.prompts = append(l.prompts, p)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return l, err
			}
			l.resources = append(l.resources, r)
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return l, err
			}
			l.templates = append(l.templates, t)
		}
	}
	return l, nil
}

// entityKey names a mounted entity: its kind ("tool", "prompt",
// "resource", "template") and its exposed name or URI.
type entityKey struct{ kind, name string }

// keys returns the keys of the entities of the last listing.
func (u *upstream) keys() []entityKey {
	u.mu.Lock()
	l := u.listed
	u.mu.Unlock()
	var ks []entityKey
	for _, t := range l.tools {
		ks = append(ks, entityKey{"tool", u.cfg.toolName(t.Name)})
	}
	for _, p := range l.prompts {
		ks = append(ks, entityKey{"prompt", u.cfg.Prefix + p.Name})
	}
	for _, r := range l.resources {
		ks = append(ks, entityKey{"resource", u.cfg.exposedURI(r.URI)})
	}
	for _, t := range l.templates {
		ks = append(ks, entityKey{"template", u.cfg.exposedURI(t.URITemplate)})
	}
	return ks
}

// serves reports whether uri is a resource the upstream mounted, or
// matches one of its templates.
func (u *upstream) serves(uri string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.mounted[entityKey{"resource", uri}]; ok {
		return true
	}
	for _, re := range u.templates {
		if re.MatchString(uri) {
			return true
		}
	}
	return false
}

// mountAll mounts the first listing, at Attach.
func (u *upstream) mountAll() error {
	u.mu.Lock()
	l := u.listed
	u.mu.Unlock()
	return u.mount(l)
}

// mount brings the mounted entities in line with l: new and changed ones
// are added (a changed one replaces the old), gone ones removed. After
// Start an entity whose name another owner on the server already uses is
// left out, with an error in the log. For each of notify ("tool",
// "prompt", "resource") whose entities did not change, one of them is
// added again, so that the server still tells its clients the list
// changed, as the upstream told the gateway.
func (u *upstream) mount(l listing, notify ...string) error {
	u.mountMu.Lock()
	defer u.mountMu.Unlock()
	want, adds := u.wanted(l)
	u.mu.Lock()
	have := maps.Clone(u.mounted)
	u.mu.Unlock()

	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(have), compareKeys) {
		if _, keep := want[k]; keep {
			continue
		}
		if err := u.remove(k); err != nil {
			fail(err)
		}
		u.g.changed(listKind(k.kind))
		u.mu.Lock()
		delete(u.mounted, k)
		u.mu.Unlock()
	}
	for _, k := range slices.SortedFunc(maps.Keys(want), compareKeys) {
		if prev, ok := have[k]; ok && prev == want[k] {
			continue
		}
		if _, mine := have[k]; !mine && u.taken(k) {
			err := fmt.Errorf("gateway: upstream %q: %s %q is already served by another owner; not mounted", u.cfg.Name, k.kind, k.name)
			u.log.Error(err.Error())
			fail(err)
			continue
		}
		if err := adds[k](); err != nil {
			fail(err)
			continue
		}
		u.g.changed(listKind(k.kind))
		notify = slices.DeleteFunc(notify, func(kind string) bool { return kind == listKind(k.kind) })
		u.mu.Lock()
		u.mounted[k] = want[k]
		u.mu.Unlock()
	}
	for _, kind := range notify {
		for _, k := range slices.SortedFunc(maps.Keys(want), compareKeys) {
			if listKind(k.kind) != kind {
				continue
			}
			if _, mine := have[k]; mine {
				if err := adds[k](); err != nil {
					fail(err)
				}
				u.g.changed(kind)
				break
			}
		}
	}
	return firstErr
}

// wanted returns the entities l mounts, by key, each with the JSON of
// its description and the function that adds it to the server.
func (u *upstream) wanted(l listing) (want map[entityKey]string, adds map[entityKey]func() error) {
	want, adds = map[entityKey]string{}, map[entityKey]func() error{}
	for _, t := range l.tools {
		k := entityKey{"tool", u.cfg.toolName(t.Name)}
		want[k] = describe(t)
		adds[k] = func() error { return u.addTool(t) }
	}
	for _, p := range l.prompts {
		k := entityKey{"prompt", u.cfg.Prefix + p.Name}
		want[k] = describe(p)
		adds[k] = func() error { return u.addPrompt(p) }
	}
	for _, r := range l.resources {
		k := entityKey{"resource", u.cfg.exposedURI(r.URI)}
		want[k] = describe(r)
		adds[k] = func() error { return u.addResource(r, nil) }
	}
	for _, t := range l.templates {
		k := entityKey{"template", u.cfg.exposedURI(t.URITemplate)}
		want[k] = describe(t)
		adds[k] = func() error { return u.addResource(nil, t) }
	}
	return want, adds
}

// listKind returns the kind of list_changed notification an entity of
// kind is in: templates are in the resources'.
func listKind(kind string) string {
	if kind == "template" {
		return "resource"
	}
	return kind
}

func compareKeys(a, b entityKey) int {
	if a.kind != b.kind {
		if a.kind < b.kind {
			return -1
		}
		return 1
	}
	switch {
	case a.name < b.name:
		return -1
	case a.name > b.name:
		return 1
	}
	return 0
}

// taken reports whether, after Start, an entity of k's name is served by
// an owner other than this upstream: another upstream of the gateway, or
// any other owner on the server (after Start, adding an entity of a name
// in use replaces the one there).
func (u *upstream) taken(k entityKey) bool {
	for _, o := range u.g.ups {
		if o == u {
			continue
		}
		o.mu.Lock()
		_, ok := o.mounted[k]
		o.mu.Unlock()
		if ok {
			return true
		}
	}
	switch k.kind {
	case "tool":
		_, ok := u.srv.Tool(k.name)
		return ok
	case "prompt":
		return u.srv.HasPrompt(k.name)
	}
	return u.srv.HasResource(k.name)
}

func (u *upstream) remove(k entityKey) error {
	switch k.kind {
	case "tool":
		return u.srv.RemoveTool(k.name)
	case "prompt":
		return u.srv.RemovePrompt(k.name)
	}
	return u.srv.RemoveResource(k.name)
}

// describe returns the JSON of an upstream description, to tell a changed
// entity from an unchanged one.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%p", v)
	}
	return string(b)
}

// addTool mounts an upstream tool: a hookflow tool whose arguments are
// validated against the upstream's input schema and whose execute step
// forwards the call, with the arguments as hooks left them.
func (u *upstream) addTool(t *mcp.Tool) error {
	exposed := *t
	exposed.Name = u.cfg.toolName(t.Name)
	m := &Mounted{Upstream: u.cfg.Name, Name: t.Name, up: u, key: entityKey{"tool", exposed.Name}}
	return framework.AddTool(u.reg, framework.Tool[*Mounted, map[string]any, *mcp.CallToolResult]{
		Tool: &exposed,
		New:  func() *Mounted { return m },
		Execute: func(m *Mounted, ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
			return m.up.callTool(ctx, req, m.key, m.Name, args)
		},
	})
}

func (u *upstream) addPrompt(p *mcp.Prompt) error {
	exposed := *p
	exposed.Name = u.cfg.Prefix + p.Name
	m := &Mounted{Upstream: u.cfg.Name, Name: p.Name, up: u, key: entityKey{"prompt", exposed.Name}}
	return framework.AddPrompt(u.reg, framework.Prompt[*Mounted]{
		Prompt: &exposed,
		New:    func() *Mounted { return m },
		Get: func(m *Mounted, ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return m.up.getPrompt(ctx, req, m.Name)
		},
		Complete: func(m *Mounted, ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return m.up.complete(ctx, req, &mcp.CompleteReference{Type: "ref/prompt", Name: m.Name})
		},
	})
}

func (u *upstream) addResource(r *mcp.Resource, t *mcp.ResourceTemplate) error {
	name := ""
	if r != nil {
		name = r.URI
	} else {
		name = t.URITemplate
	}
	kind := "resource"
	if r == nil {
		kind = "template"
	}
	// Name is the upstream's URI (what a forwarded request names); key,
	// as every key of the upstream's entities, the URI its clients see.
	m := &Mounted{Upstream: u.cfg.Name, Name: name, up: u, key: entityKey{kind, u.cfg.exposedURI(name)}}
	def := framework.Resource[*Mounted]{
		New: func() *Mounted { return m },
		Read: func(m *Mounted, ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return m.up.readResource(ctx, req)
		},
	}
	if r != nil {
		c := *r
		c.URI = u.cfg.exposedURI(c.URI)
		def.Resource = &c
	} else {
		c := *t
		c.URITemplate = u.cfg.exposedURI(c.URITemplate)
		def.Template = &c
		def.Complete = func(m *Mounted, ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return m.up.complete(ctx, req, &mcp.CompleteReference{Type: "ref/resource", URI: m.Name})
		}
	}
	return framework.AddResource(u.reg, def)
}

// forward runs one request through the client session's upstream session:
// bounded by the upstream's Timeout, tracked so that what the upstream
// sends about it reaches the client, with its errors wrapped.
func forward[R any](u *upstream, ctx context.Context, req mcp.Request, key entityKey, method, name string, token any, do func(ctx context.Context, cs *mcp.ClientSession, token any) (R, error)) (R, error) {
	var zero R
	ss, _ := req.GetSession().(*mcp.ServerSession)
	var caps *mcp.ClientCapabilities
	var version string
	if cr, ok := req.(clientInfo); ok && ss != nil {
		caps, version = cr.ClientCapabilities(), cr.ProtocolVersion()
	}
	c, err := u.session(ctx, ss, req.GetExtra(), caps, version)
	if err != nil {
		return zero, err
	}
	defer u.pool.Busy(c)()
	if err := u.unknownTo(c, key); err != nil {
		return zero, err
	}
	ctx, cancel, progressed := u.deadline(ctx)
	defer cancel()
	ctx, upToken, end := c.Calls.Begin(ctx, ss, token, progressed)
	defer end()
	res, err := do(ctx, c.CS, upToken)
	c.Drain(ss)
	if err != nil {
		return zero, u.wrap(ctx, c, method, name, err)
	}
	return res, nil
}

// unknownTo returns the error the client gets for a tool or prompt (key;
// the zero key for another request) that the client session's upstream
// session c does not list, the one the SDK gives for a name it does not
// know; nil when c lists it or is not a listed client session's.
func (u *upstream) unknownTo(c *conn, key entityKey) error {
	if key.kind != "tool" && key.kind != "prompt" {
		return nil
	}
	u.mu.Lock()
	keys := c.keys
	_, ok := keys[key]
	u.mu.Unlock()
	if c.ss == nil || keys == nil || ok {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown %s %q", key.kind, key.name)}
}

// deadline returns ctx bounded for one forwarded request: by Timeout;
// or, with ResetTimeoutOnProgress, by Timeout since the start or the
// request's last progress (which progressed, called for each, records),
// and by MaxTotalTimeout in all.
func (u *upstream) deadline(ctx context.Context) (_ context.Context, cancel context.CancelFunc, progressed func()) {
	if !u.cfg.ResetTimeoutOnProgress {
		ctx, cancel := context.WithTimeoutCause(ctx, u.cfg.Timeout, errTimeout)
		return ctx, cancel, nil
	}
	ctx, cancelTotal := context.WithTimeoutCause(ctx, u.cfg.MaxTotalTimeout, errTotalTimeout)
	ctx, cancelIdle := context.WithCancelCause(ctx)
	timer := time.AfterFunc(u.cfg.Timeout, func() { cancelIdle(errTimeout) })
	return ctx, func() {
			timer.Stop()
			cancelIdle(context.Canceled)
			cancelTotal()
		}, func() {
			timer.Reset(u.cfg.Timeout)
		}
}

// clientInfo is what every *mcp.ServerRequest says of its client.
type clientInfo interface {
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}

// callTool forwards a tools/call with the arguments as hooks left them.
func (u *upstream) callTool(ctx context.Context, req *mcp.CallToolRequest, key entityKey, name string, args map[string]any) (*mcp.CallToolResult, error) {
	p := req.Params
	var sent any = args
	if raw := rawArgs(req, args); raw != nil {
		sent = raw
	}
	return forward(u, ctx, req, key, "tools/call", name, p.GetProgressToken(), func(ctx context.Context, cs *mcp.ClientSession, token any) (*mcp.CallToolResult, error) {
		up := &mcp.CallToolParams{Meta: forwardMeta(ctx, cs, p.Meta, token), Name: name, Arguments: sent,
			InputResponses: p.InputResponses, RequestState: p.RequestState}
		res, err := cs.CallTool(ctx, up)
		if res != nil {
			u.cfg.exposeContents(nil, res.Content)
		}
		return res, err
	})
}

// rawArgs returns the arguments of the client's request req as the
// client wrote them when they say what args (the arguments as validated
// and as hooks left them) say, so that numbers keep every digit (an
// integer above 2^53 does not survive the float64 of a decoded value);
// else nil, and args go upstream (a hook changed them, or the schema
// added defaults).
func rawArgs(req *mcp.CallToolRequest, args map[string]any) json.RawMessage {
	if req == nil || req.Params == nil || !longDigits(req.Params.Arguments) {
		// Without 16 digits in a row, every number survives a float64:
		// args say the same.
		return nil
	}
	var decoded map[string]any
	if json.Unmarshal(req.Params.Arguments, &decoded) != nil || !reflect.DeepEqual(decoded, args) {
		return nil
	}
	return req.Params.Arguments
}

// longDigits reports whether b holds 16 digits in a row: a number a
// float64 may not hold exactly (2^53 has 16 digits), or a string that
// looks like one.
func longDigits(b []byte) bool {
	run := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			run = 0
		} else if run++; run >= 16 {
			return true
		}
	}
	return false
}

func (u *upstream) getPrompt(ctx context.Context, req *mcp.GetPromptRequest, name string) (*mcp.GetPromptResult, error) {
	p := *req.Params
	return forward(u, ctx, req, entityKey{"prompt", u.cfg.Prefix + name}, "prompts/get", name, p.GetProgressToken(), func(ctx context.Context, cs *mcp.ClientSession, token any) (*mcp.GetPromptResult, error) {
		p.Name, p.Meta = name, forwardMeta(ctx, cs, p.Meta, token)
		return cs.GetPrompt(ctx, &p)
	})
}

func (u *upstream) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p := *req.Params
	return forward(u, ctx, req, entityKey{}, "resources/read", p.URI, p.GetProgressToken(), func(ctx context.Context, cs *mcp.ClientSession, token any) (*mcp.ReadResourceResult, error) {
		p.URI, p.Meta = u.cfg.upstreamURI(p.URI), forwardMeta(ctx, cs, p.Meta, token)
		res, err := cs.ReadResource(ctx, &p)
		if res != nil {
			u.cfg.exposeContents(res.Contents, nil)
		}
		return res, err
	})
}

func (u *upstream) complete(ctx context.Context, req *mcp.CompleteRequest, ref *mcp.CompleteReference) (*mcp.CompleteResult, error) {
	p := *req.Params
	p.Ref = ref
	return forward(u, ctx, req, entityKey{}, "completion/complete", ref.Name+ref.URI, nil, func(ctx context.Context, cs *mcp.ClientSession, _ any) (*mcp.CompleteResult, error) {
		p.Meta = forwardMeta(ctx, cs, p.Meta, nil)
		return cs.Complete(ctx, &p)
	})
}

// forwardMeta returns the _meta to send upstream: the client's, with the
// progress token replaced by the gateway's (or removed when nil), and,
// when ctx carries a span (the otel plugin's span of the run, or one an
// HTTP middleware started), the W3C trace context of that span, so that
// the upstream's work is its child. Without a span the client's trace
// context passes through as it came.
func forwardMeta(ctx context.Context, cs *mcp.ClientSession, meta mcp.Meta, token any) mcp.Meta {
	traced := trace.SpanContextFromContext(ctx).IsValid()
	if meta == nil && token == nil && !traced {
		return nil
	}
	out := maps.Clone(meta)
	if out == nil {
		out = mcp.Meta{}
	}
	delete(out, "progressToken")
	// The protocol's per-request metadata (2026-07-28: the client's
	// version, info and capabilities) goes upstream when the upstream
	// session speaks that protocol too, so the upstream answers for the
	// real client's capabilities; an upstream session on an older version
	// would refuse a request claiming a version it does not speak.
	if ir := cs.InitializeResult(); ir == nil || ir.ProtocolVersion < modernVersion {
		for _, k := range hopMeta {
			delete(out, k)
		}
	}
	if token != nil {
		out["progressToken"] = token
	}
	if traced {
		delete(out, "tracestate") // replaced by the span's own, or dropped when it has none
		propagation.TraceContext{}.Inject(ctx, metaCarrier(out))
	}
	return out
}

// modernVersion is the first protocol version with per-request metadata.
const modernVersion = "2026-07-28"

// hopMeta are the _meta keys of the protocol's per-request metadata.
var hopMeta = [...]string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyServerInfo,
	mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel, mcp.MetaKeySubscriptionID}

// metaCarrier writes a request's _meta as a propagation carrier.
type metaCarrier mcp.Meta

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string { return slices.Collect(maps.Keys(m)) }

// listMain makes l the main session's listing, with its keys and its
// templates compiled. u.mu is held.
func (u *upstream) listMain(l listing) {
	u.listed, u.mainKeys = l, u.keyed(l)
	u.templates = u.templates[:0:0]
	for _, t := range l.templates {
		if re := compileTemplate(u.cfg.exposedURI(t.URITemplate)); re != nil {
			u.templates = append(u.templates, re)
		}
	}
}

// compileTemplate compiles the URI template tmpl (RFC 6570) into the
// expression the URIs it expands to match, as the MCP SDK's server
// matches a read against a resource template; nil when tmpl does not
// parse, matching nothing.
func compileTemplate(tmpl string) *regexp.Regexp {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil
	}
	return t.Regexp()
}
