package gateway

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// subscribe forwards a client's resource (un)subscription. A client
// session with an upstream session of its own subscribes on it, so that
// the upstream tells it of the updates it would tell the client direct
// (an upstream's subscriptions, like its state, are per session). A
// client session that shares the main session (Shared, stateless HTTP)
// subscribes on that one: the first subscription to a URI subscribes
// upstream, the last unsubscription unsubscribes, and the upstream's
// updates go to every client session subscribed, once each.
func (u *upstream) subscribe(ctx context.Context, req mcp.Request, uri string, on bool) error {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if u.sharedFor(ss, req.GetExtra()) {
		return u.subscribeShared(ctx, ss, uri, on)
	}
	var caps *mcp.ClientCapabilities
	var version string
	if cr, ok := req.(clientInfo); ok {
		caps, version = cr.ClientCapabilities(), cr.ProtocolVersion()
	}
	c, err := u.session(ctx, ss, req.GetExtra(), caps, version)
	if err != nil {
		return err
	}
	if c.ss == nil {
		// A shared session of the client's protocol version serves it.
		return u.subscribeShared(ctx, ss, uri, on)
	}
	u.mu.Lock()
	if on {
		if u.own[ss] == nil {
			u.own[ss] = map[string]bool{}
		}
		u.own[ss][uri] = true
	} else if m := u.own[ss]; m != nil {
		delete(m, uri)
		if len(m) == 0 {
			delete(u.own, ss)
		}
	}
	u.mu.Unlock()
	ctx, cancel := context.WithTimeoutCause(ctx, u.cfg.Timeout, errTimeout)
	defer cancel()
	if on {
		err = c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	} else {
		err = c.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
	if err != nil && on {
		u.mu.Lock()
		if m := u.own[ss]; m != nil {
			delete(m, uri)
			if len(m) == 0 {
				delete(u.own, ss)
			}
		}
		u.mu.Unlock()
	}
	return u.wrap(ctx, c, "resources/subscribe", uri, err)
}

// sharedFor reports whether the requests of client session ss (with the
// transport's extra) go through the main session rather than one of the
// session's own.
func (u *upstream) sharedFor(ss *mcp.ServerSession, extra *mcp.RequestExtra) bool {
	return u.cfg.Shared || ss == nil || (extra != nil && ss.ID() == "")
}

// subscribeShared is subscribe on the main session.
func (u *upstream) subscribeShared(ctx context.Context, ss *mcp.ServerSession, uri string, on bool) error {
	u.mu.Lock()
	if u.state != StateUp {
		h := Health{Upstream: u.cfg.Name, State: u.state, Err: u.err}
		u.mu.Unlock()
		return unavailable(h)
	}
	c, n := u.main, len(u.shared[uri])
	if on {
		if u.shared[uri] == nil {
			u.shared[uri] = map[*mcp.ServerSession]bool{}
		}
		u.shared[uri][ss] = true
	} else {
		delete(u.shared[uri], ss)
		if len(u.shared[uri]) == 0 {
			delete(u.shared, uri)
		}
	}
	m := len(u.shared[uri])
	u.mu.Unlock()
	if (on && n > 0) || (!on && (n == 0 || m > 0)) {
		return nil
	}
	ctx, cancel := context.WithTimeoutCause(ctx, u.cfg.Timeout, errTimeout)
	defer cancel()
	var err error
	if on {
		err = c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	} else {
		err = c.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
	if err != nil && on {
		u.mu.Lock()
		delete(u.shared[uri], ss)
		if len(u.shared[uri]) == 0 {
			delete(u.shared, uri)
		}
		u.mu.Unlock()
	}
	return u.wrap(ctx, c, "resources/subscribe", uri, err)
}

// resubscribe subscribes c, a new main session or a client session's
// new upstream session, to the URIs its client sessions are subscribed
// to, so that a replaced session goes on telling them of updates.
func (u *upstream) resubscribe(c *conn) {
	u.mu.Lock()
	var uris []string
	if c.ss == nil {
		uris = slices.Sorted(maps.Keys(u.shared))
	} else {
		uris = slices.Sorted(maps.Keys(u.own[c.ss]))
	}
	u.mu.Unlock()
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(context.Background(), u.cfg.Timeout)
		if err := c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			u.log.Warn("gateway: subscribing again on a new upstream session", slog.String("uri", uri), slog.Any("err", err))
		}
		cancel()
	}
}

// forgetSubscriptions drops what client session ss, which ended,
// subscribed to.
func (u *upstream) forgetSubscriptions(ss *mcp.ServerSession) {
	u.mu.Lock()
	delete(u.own, ss)
	for uri, m := range u.shared {
		delete(m, ss)
		if len(m) == 0 {
			delete(u.shared, uri)
		}
	}
	u.mu.Unlock()
	u.g.forgetOwed(ss)
}

// ResourceUpdated passes the upstream's notifications/resources/updated
// on: from a client session's own upstream session, to that session;
// from a shared one, to the sessions subscribed through it; each only
// when it subscribed to the URI. The SDK sends an update to every
// session subscribed to the URI: the gateway's hook on what the server
// sends (deliverUpdates) lets through only the updates owed.
func (c *conn) ResourceUpdated(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	u, uri := c.u, req.Params.URI
	var to []*mcp.ServerSession
	u.mu.Lock()
	if c.ss != nil {
		if u.own[c.ss][uri] {
			to = append(to, c.ss)
		}
	} else {
		to = slices.Collect(maps.Keys(u.shared[uri]))
	}
	u.mu.Unlock()
	if len(to) == 0 {
		return
	}
	// The clients know the resource by the URI the gateway exposes
	// (ResourcePrefix); the upstream sent its own.
	p := *req.Params
	p.URI = u.cfg.exposedURI(uri)
	u.g.owe(to, p.URI)
	_ = u.srv.SDK().ResourceUpdated(context.WithoutCancel(ctx), &p)
}

// Subscribe forwards a resource subscription to the upstream that serves
// the resource; use it as [framework.Options.Subscribe]. A client session
// with an upstream session of its own subscribes on it, and gets the
// updates the upstream sends that session, as it would direct; client
// sessions that share the gateway's own session (Shared, stateless HTTP)
// subscribe on that one, once per URI however many of them subscribe,
// and each gets every update once. A URI no upstream serves is accepted
// and ignored.
func (g *Gateway) Subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	for _, u := range g.ups {
		if u.serves(req.Params.URI) {
			g.watchSession(req.Session)
			return u.subscribe(ctx, req, u.cfg.upstreamURI(req.Params.URI), true)
		}
	}
	return nil
}

// Unsubscribe forwards the end of a resource subscription, as Subscribe;
// use it as [framework.Options.Unsubscribe].
func (g *Gateway) Unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	for _, u := range g.ups {
		if u.serves(req.Params.URI) {
			return u.subscribe(ctx, req, u.cfg.upstreamURI(req.Params.URI), false)
		}
	}
	return nil
}

// owedUpdate is an update of the resource uri owed to client session ss.
type owedUpdate struct {
	ss  *mcp.ServerSession
	uri string
}

// owe records that an update of uri is owed to the sessions to; the
// next one the server sends each is let through.
func (g *Gateway) owe(to []*mcp.ServerSession, uri string) {
	g.mu.Lock()
	for _, ss := range to {
		g.owed[owedUpdate{ss, uri}] = true
	}
	g.mu.Unlock()
}

// forgetOwed drops the updates owed to ss, which ended.
func (g *Gateway) forgetOwed(ss *mcp.ServerSession) {
	g.mu.Lock()
	for k := range g.owed {
		if k.ss == ss {
			delete(g.owed, k)
		}
	}
	g.mu.Unlock()
}

// deliverUpdates is the gateway's hook on what the server sends: a
// notifications/resources/updated of a URI an upstream serves goes to a
// client session only when one is owed to it (see conn.resourceUpdated).
// The SDK sends an update to every session subscribed to the URI, while
// an upstream told one session, or the sessions sharing its own.
func (g *Gateway) deliverUpdates(c *flows.Context) error {
	if c.Request().Method != "notifications/resources/updated" || c.Session() == nil {
		return nil
	}
	p, _ := c.Input().(*mcp.ResourceUpdatedNotificationParams)
	if p == nil || !slices.ContainsFunc(g.ups, func(u *upstream) bool { return u.serves(p.URI) }) {
		return nil
	}
	k := owedUpdate{c.Session(), p.URI}
	g.mu.Lock()
	owed := g.owed[k]
	delete(g.owed, k)
	g.mu.Unlock()
	if !owed {
		c.Respond(nil)
	}
	return nil
}
