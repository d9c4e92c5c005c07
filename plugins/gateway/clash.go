package gateway

// owner is the upstream that mounts an entity, and the entity's kind.
type owner struct{ kind, up string }

// peerKeys returns the entities the other gateways of g's server mounted,
// those attached so far, by kind and name ("tool echo").
func (g *Gateway) peerKeys() map[string]owner {
	seen := map[string]owner{}
	for _, o := range g.peers {
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
