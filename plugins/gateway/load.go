package gateway

// Load is what a gateway holds at a moment: the notifications waiting in
// its queues to client sessions and, per upstream, its sessions and the
// notifications read from them not yet handled. It is what the gateway
// command's metrics report (docs/gateway.md, "Metrics").
type Load struct {
	// Endpoint is [Config.Endpoint], the virtual endpoint whose server
	// the gateway serves; "" for none.
	Endpoint string
	// Queued counts the notifications of upstreams waiting to reach
	// client sessions, over every client session (each queue holds at
	// most [Config.QueueLimit]).
	Queued int
	// Upstreams are the upstreams' loads, in the order of the Config.
	Upstreams []UpstreamLoad
}

// UpstreamLoad is one upstream's entry in a [Load].
type UpstreamLoad struct {
	Upstream string
	// Sessions counts the upstream sessions open: the gateway's own and
	// those of client sessions or shared ones (bounded by
	// [Upstream.MaxSessions]).
	Sessions int
	// Backlog counts the notifications read from the upstream's
	// sessions that the gateway has not handled yet.
	Backlog int
}

// Load returns the gateway's load. It takes the locks a call's path
// takes briefly and allocates its answer: call it when metrics are read,
// not per call.
func (g *Gateway) Load() Load {
	l := Load{Endpoint: g.endpoint}
	if g.out != nil {
		l.Queued = g.out.Len()
	}
	l.Upstreams = make([]UpstreamLoad, len(g.ups))
	for i, u := range g.ups {
		ul := UpstreamLoad{Upstream: u.cfg.Name}
		u.mu.Lock()
		main := u.main
		u.mu.Unlock()
		if main != nil {
			ul.Sessions++
			ul.Backlog += main.Backlog()
		}
		for _, c := range u.pool.Conns() {
			ul.Sessions++
			ul.Backlog += c.Backlog()
		}
		l.Upstreams[i] = ul
	}
	return l
}
