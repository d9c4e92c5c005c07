package gateway

import (
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/gateway/internal/filter"
)

// mountsTool reports whether the upstream's tool named name is mounted:
// AllowTools is empty or one of its patterns matches name, and none of
// DenyTools' does.
func (c *Upstream) mountsTool(name string) bool {
	return (len(c.AllowTools) == 0 || anyMatch(c.AllowTools, name)) && !anyMatch(c.DenyTools, name)
}

// anyMatch reports whether one of patterns (checked by checkFilters)
// matches name.
func anyMatch(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// filter returns l without the tools AllowTools and DenyTools leave out,
// with only what Select selects, and Overrides applied.
func (u *upstream) filter(l listing) listing {
	l = u.filterTools(l)
	return u.cfg.selectAndOverride(l)
}

// filterTools returns l without the tools AllowTools and DenyTools leave
// out. The first time an allow pattern matches none of the upstream's
// tools, the log warns: a misspelt name would otherwise hide a tool
// silently.
func (u *upstream) filterTools(l listing) listing {
	c := &u.cfg
	if len(c.AllowTools) == 0 && len(c.DenyTools) == 0 {
		return l
	}
	kept := make([]*mcp.Tool, 0, len(l.tools))
	for _, t := range l.tools {
		if c.mountsTool(t.Name) {
			kept = append(kept, t)
		}
	}
	if u.log != nil && u.warnedAllow.CompareAndSwap(false, true) {
		for _, p := range c.AllowTools {
			if !slices.ContainsFunc(l.tools, func(t *mcp.Tool) bool { ok, _ := path.Match(p, t.Name); return ok }) {
				u.log.Warn("gateway: an allow_tools pattern matches none of the upstream's tools", slog.String("pattern", p))
			}
		}
	}
	l.tools = kept
	return l
}

// exposedURI returns the URI (or URI template) the server's clients see
// for the upstream's uri.
func (c *Upstream) exposedURI(uri string) string { return c.ResourcePrefix + uri }

// upstreamURI returns the upstream's URI of exposed, a URI the server's
// clients sent: without ResourcePrefix.
func (c *Upstream) upstreamURI(exposed string) string {
	return strings.TrimPrefix(exposed, c.ResourcePrefix)
}

// exposeContents gives the URIs of what the upstream answered (a read's
// contents, a tool's resource links and embedded resources) the
// ResourcePrefix, so that a client can read them through the gateway.
func (c *Upstream) exposeContents(contents []*mcp.ResourceContents, content []mcp.Content) {
	if c.ResourcePrefix == "" {
		return
	}
	for _, rc := range contents {
		if rc != nil && rc.URI != "" {
			rc.URI = c.exposedURI(rc.URI)
		}
	}
	for _, ct := range content {
		switch v := ct.(type) {
		case *mcp.ResourceLink:
			v.URI = c.exposedURI(v.URI)
		case *mcp.EmbeddedResource:
			if v.Resource != nil && v.Resource.URI != "" {
				v.Resource.URI = c.exposedURI(v.Resource.URI)
			}
		}
	}
}

// checkFilters checks an upstream's tool patterns and resource prefix.
func checkFilters(c *Upstream) error {
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"AllowTools", c.AllowTools}, {"DenyTools", c.DenyTools}} {
		for _, p := range list.patterns {
			if err := filter.Pattern(p); err != nil {
				return invalid(fmt.Sprintf("upstream %q: %s: %v", c.Name, list.name, err))
			}
		}
	}
	if err := filter.ResourcePrefix(c.ResourcePrefix); err != nil {
		return invalid(fmt.Sprintf("upstream %q: ResourcePrefix: %v", c.Name, err))
	}
	return nil
}
