package gateway

import (
	"cmp"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// An upstream may offer each client session its own entities: a tool
// only to clients that declare sampling, a tool a session's process added
// at run time. The gateway mounts the union of what its upstream sessions
// list (its own, then the client sessions' in the order they opened),
// one entity per name, and each client session sees, through the
// gateway's Visibility, exactly what its own upstream session lists: a
// client session whose upstream session is open and listed sees that
// listing; any other (not yet open, shared, stateless) the gateway's own
// session's. When two upstream sessions give one name different
// definitions, the entity mounted, listed to every session and whose
// input schema checks the arguments, is the first: the gateway's own
// session's, else the one of the client session that listed it first;
// the upstream session a call goes to checks the arguments again by its
// own definition.

// keyed returns the entity keys of l, with their descriptions, as u
// mounts them.
func (u *upstream) keyed(l listing) map[entityKey]string {
	m := make(map[entityKey]string, len(l.tools)+len(l.prompts)+len(l.resources)+len(l.templates))
	for _, t := range l.tools {
		m[entityKey{"tool", u.cfg.toolName(t.Name)}] = describe(t)
	}
	for _, p := range l.prompts {
		m[entityKey{"prompt", u.cfg.Prefix + p.Name}] = describe(p)
	}
	for _, r := range l.resources {
		m[entityKey{"resource", u.cfg.exposedURI(r.URI)}] = describe(r)
	}
	for _, t := range l.templates {
		m[entityKey{"template", u.cfg.exposedURI(t.URITemplate)}] = describe(t)
	}
	return m
}

// union returns what the upstream's sessions list, each name once: the
// main session's listing, then the client sessions', in the order they
// opened. Callers hold u.mu.
func (u *upstream) union() listing {
	out := listing{tools: slices.Clone(u.listed.tools), prompts: slices.Clone(u.listed.prompts),
		resources: slices.Clone(u.listed.resources), templates: slices.Clone(u.listed.templates)}
	seen := u.keyed(out)
	var conns []*conn
	for _, c := range u.pool.Conns() {
		if listed(c) {
			conns = append(conns, c)
		}
	}
	slices.SortFunc(conns, func(a, b *conn) int { return cmp.Compare(a.seq, b.seq) })
	add := func(k entityKey) bool {
		if _, ok := seen[k]; ok {
			return false
		}
		seen[k] = ""
		return true
	}
	for _, c := range conns {
		for _, t := range c.listed.tools {
			if add(entityKey{"tool", u.cfg.toolName(t.Name)}) {
				out.tools = append(out.tools, t)
			}
		}
		for _, p := range c.listed.prompts {
			if add(entityKey{"prompt", u.cfg.Prefix + p.Name}) {
				out.prompts = append(out.prompts, p)
			}
		}
		for _, r := range c.listed.resources {
			if add(entityKey{"resource", u.cfg.exposedURI(r.URI)}) {
				out.resources = append(out.resources, r)
			}
		}
		for _, t := range c.listed.templates {
			if add(entityKey{"template", u.cfg.exposedURI(t.URITemplate)}) {
				out.templates = append(out.templates, t)
			}
		}
	}
	return out
}

// listedConn returns s's upstream session when it is open and a listed
// client session's, else nil (s nil too). Callers hold u.mu.
func listedConn(s *slot) *conn {
	if s == nil {
		return nil
	}
	if c, ok := s.Conn(); ok && listed(c) {
		return c
	}
	return nil
}

// listed reports whether c is a client session's upstream session, and
// listed. Callers hold u.mu.
func listed(c *conn) bool { return c.ss != nil && c.keys != nil }

// remount mounts the union of the upstream sessions' listings, telling
// the server's clients of a change of kinds (see mount).
func (u *upstream) remount(kinds ...string) {
	u.mu.Lock()
	l := u.union()
	u.mu.Unlock()
	if err := u.mount(l, kinds...); err != nil {
		u.log.Error("gateway: mounting after a list change", slog.Any("err", err))
	}
}

// setListing records l as what c lists: the main session's listing (with
// its keys, what the client sessions without a listed session of their
// own see) or a client session's.
func (u *upstream) setListing(c *conn, l listing) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if c.ss == nil {
		if c == u.main {
			u.listMain(l)
		}
		return
	}
	keys := u.keyed(l)
	if maps.Equal(keys, u.mainKeys) {
		// Most sessions list what the main session does: they share its
		// listing rather than each holding a copy of every definition.
		l, keys = u.listed, u.mainKeys
	}
	c.listed, c.keys = l, keys
}

// offers reports whether the upstream session that serves client
// session ss lists the entity k: the session's own when it is open and
// listed, else the main session.
func (u *upstream) offers(ss *mcp.ServerSession, k entityKey) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	var keys map[entityKey]string
	if c := listedConn(u.pool.Get(sessionKey{ss: ss})); ss != nil && c != nil {
		keys = c.keys
	}
	if keys == nil {
		keys = u.mainKeys
	}
	_, ok := keys[k]
	return ok
}

// A wrong method shape is a compile error, not an error at Use.
var _ framework.Visibility = (*Gateway)(nil)

// Visible hides from a client session the mounted entities its own
// upstream session does not list (see the package doc); entities the
// gateway did not mount are not its to decide.
func (g *Gateway) Visible(r *flows.Request, e *flows.Entity) framework.Sight {
	m, ok := e.Value.(*Mounted)
	if !ok || m == nil || m.up == nil || m.up.g != g || r == nil {
		return framework.Shown
	}
	if m.up.offers(r.Session, m.key) {
		return framework.Shown
	}
	return framework.Hidden
}

// openForList is the gateway's hook on the list flows: a client
// session that lists entities first gets its own upstream sessions,
// opened and listed, so that the list holds what they offer it.
func (g *Gateway) openForList(c *flows.Context) error {
	r := c.Request()
	if r.Session == nil || r.SDK == nil {
		return nil
	}
	g.watchSession(r.Session)
	for _, u := range g.ups {
		if u.sharedFor(r.Session, r.SDK.GetExtra()) {
			continue
		}
		// A session that cannot be opened is logged by session; the
		// list then holds what the main session lists.
		_, _ = u.session(c.Context(), r.Session, r.SDK.GetExtra(), r.ClientCapabilities, r.ProtocolVersion)
	}
	g.told(r.Session, listKindOf(r.Method))
	return nil
}

// listKindOf returns the kind of list_changed a list method or
// notification is about ("tool", "prompt", "resource"), "" for none.
func listKindOf(method string) string {
	switch method {
	case "tools/list", "notifications/tools/list_changed":
		return "tool"
	case "prompts/list", "notifications/prompts/list_changed":
		return "prompt"
	case "resources/list", "resources/templates/list", "notifications/resources/list_changed":
		return "resource"
	}
	return ""
}

// view returns a digest of the entities of kind (a list_changed kind)
// that client session ss sees, with their definitions.
func (g *Gateway) view(ss *mcp.ServerSession, kind string) uint64 {
	h := fnv.New64a()
	for _, u := range g.ups {
		u.mu.Lock()
		var own map[entityKey]string
		if c := listedConn(u.pool.Get(sessionKey{ss: ss})); c != nil {
			own = c.keys
		}
		if own == nil {
			own = u.mainKeys
		}
		keys := make([]entityKey, 0, len(u.mounted))
		for k := range u.mounted {
			if _, ok := own[k]; ok && listKind(k.kind) == kind {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, compareKeys)
		for _, k := range keys {
			_, _ = io.WriteString(h, k.kind+"\x00"+k.name+"\x00"+own[k]+"\x00")
		}
		u.mu.Unlock()
	}
	return h.Sum64()
}

// toldKey names what a client session was last told of one kind of list.
type toldKey struct {
	ss   *mcp.ServerSession
	kind string
}

// told is what a session was last told: the digest of its view when it
// last listed or was told of a change, and the gateway's count of its
// changes to the server's entities when it was last told of one.
type told struct {
	view    uint64
	changes uint64
}

// told records what client session ss sees of kind as it lists it.
// The count of changes is the one at its last notification (at its first
// list, the current one), so that a notification of a change made
// before it listed, which the SDK sends a moment later, is still known
// for the gateway's.
func (g *Gateway) told(ss *mcp.ServerSession, kind string) {
	if kind == "" {
		return
	}
	v := g.view(ss, kind)
	k := toldKey{ss, kind}
	g.mu.Lock()
	t, ok := g.seen[k]
	if !ok {
		t.changes = g.changes[kind]
	}
	t.view = v
	g.seen[k] = t
	g.mu.Unlock()
}

// changed counts a change the gateway made to the server's entities of
// kind (a list_changed kind).
func (g *Gateway) changed(kind string) {
	g.mu.Lock()
	g.changes[kind]++
	g.mu.Unlock()
}

// deliverListChanged is the gateway's hook on the list_changed
// notifications the server sends: the SDK tells every session that the
// server's list changed, while what a session sees of the gateway's
// entities is what its own upstream session lists. A session is told
// unless the gateway changed the server's entities since it was last
// told and what it sees did not change; a change the gateway did not
// make (a local entity's) goes to every session.
func (g *Gateway) deliverListChanged(c *flows.Context) error {
	method := c.Request().Method
	kind, ss := listKindOf(method), c.Session()
	if kind == "" || ss == nil || !strings.HasSuffix(method, "/list_changed") {
		return nil
	}
	v := g.view(ss, kind)
	k := toldKey{ss, kind}
	g.mu.Lock()
	prev, ok := g.seen[k]
	changes := g.changes[kind]
	drop := ok && prev.view == v && prev.changes != changes && !g.force[k]
	delete(g.force, k)
	g.seen[k] = told{view: v, changes: changes}
	g.mu.Unlock()
	if drop {
		c.Respond(nil)
	}
	return nil
}

// forceTell makes sure the client sessions that upstream session c
// serves are told that their lists of kinds changed, as c's upstream
// said, though what they see may not have: c's client session, or for
// the main session the sessions that see what it lists.
func (g *Gateway) forceTell(u *upstream, c *conn, kinds []string) {
	var to []*mcp.ServerSession
	if c.ss != nil {
		to = append(to, c.ss)
	} else {
		g.mu.Lock()
		all := slices.Collect(maps.Keys(g.sessions))
		g.mu.Unlock()
		u.mu.Lock()
		for _, ss := range all {
			if listedConn(u.pool.Get(sessionKey{ss: ss})) == nil {
				to = append(to, ss)
			}
		}
		u.mu.Unlock()
	}
	g.mu.Lock()
	for _, ss := range to {
		for _, kind := range kinds {
			g.force[toldKey{ss, kind}] = true
		}
	}
	g.mu.Unlock()
}

// watchSession forgets what the gateway keeps for client session ss
// once it ends: its subscriptions, the updates owed to it, what it was
// told of its lists.
func (g *Gateway) watchSession(ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	g.mu.Lock()
	seen := g.sessions[ss]
	g.sessions[ss] = true
	g.mu.Unlock()
	if seen {
		return
	}
	ups.Go(g.log, "waiting for a client session", func() {
		_ = ss.Wait()
		for _, u := range g.ups {
			u.forgetSubscriptions(ss)
		}
		g.mu.Lock()
		delete(g.sessions, ss)
		for k := range g.seen {
			if k.ss == ss {
				delete(g.seen, k)
			}
		}
		for k := range g.force {
			if k.ss == ss {
				delete(g.force, k)
			}
		}
		g.mu.Unlock()
	})
}
