package gateway

import "sync"

// owner is the upstream that mounts an entity, and the entity's kind.
type owner struct{ kind, up string }

// peers are the gateways of one server, mounting upstreams into the
// server and into its apps. Entities of the server and of its apps share
// one namespace, so the entities of one gateway must not clash with
// another's: each gateway checks at Attach against those attached before
// it, and reports a clash as it does between two of its own upstreams,
// with the setting that resolves it.
type peers struct {
	mu  sync.Mutex
	gws []*Gateway
}

// add adds g to p and returns p.
func (p *peers) add(g *Gateway) *peers {
	p.mu.Lock()
	p.gws = append(p.gws, g)
	p.mu.Unlock()
	return p
}

// peerKeys returns the entities the other gateways of g's server mounted,
// those attached so far, by kind and name ("tool echo").
func (g *Gateway) peerKeys() map[string]owner {
	seen := map[string]owner{}
	if g.peers == nil {
		return seen
	}
	g.peers.mu.Lock()
	gws := append([]*Gateway(nil), g.peers.gws...)
	g.peers.mu.Unlock()
	for _, o := range gws {
		o.mu.Lock()
		attached := o.attached
		o.mu.Unlock()
		if o == g || !attached {
			continue
		}
		for _, u := range o.ups {
			for _, key := range u.keys() {
				seen[key.kind+" "+key.name] = owner{key.kind, u.cfg.Name}
			}
		}
	}
	return seen
}
