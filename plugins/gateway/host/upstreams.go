package host

import "maps"

// UpstreamAware is the configuration C of a plugin that takes the
// gateway's upstreams before it is built: the command plugin's, whose
// mcp_tool hooks name an upstream as a team's settings name their MCP
// server. [Serve] and [Explain], before they validate and build the
// plugin, and [Check], before it validates its configuration, call
// WithUpstreams with every upstream of the [Config], wherever it is
// mounted, its name mapped to its Prefix ("" for none), and go on with
// the configuration it returns. Each call gets a map of its own.
type UpstreamAware[C any] interface {
	WithUpstreams(prefixes map[string]string) C
}

// upstreamsOf returns the function that hands prefixes to a C, or nil
// when C is not UpstreamAware. A configuration that is no C is returned
// as it is, for validate to report.
func upstreamsOf[C any]() func(cfg any, prefixes map[string]string) any {
	if _, ok := any(*new(C)).(UpstreamAware[C]); !ok {
		return nil
	}
	return func(cfg any, prefixes map[string]string) any {
		c, ok := cfg.(C)
		if !ok {
			return cfg
		}
		return any(c).(UpstreamAware[C]).WithUpstreams(prefixes)
	}
}

// withUpstreams returns p with prefixes handed to its configuration when
// it is UpstreamAware.
func (p PluginConfig) withUpstreams(prefixes map[string]string) PluginConfig {
	if p.Spec.upstreams != nil {
		p.Config = p.Spec.upstreams(p.Config, maps.Clone(prefixes))
	}
	return p
}

// upstreamPrefixes returns the prefixes of cfg's upstreams by name, the
// first upstream of a name's (a file names each once).
func upstreamPrefixes(cfg *Config) map[string]string {
	m := make(map[string]string, len(cfg.Upstreams))
	for _, u := range cfg.Upstreams {
		if _, dup := m[u.Name]; !dup && u.Name != "" {
			m[u.Name] = u.Prefix
		}
	}
	return m
}
