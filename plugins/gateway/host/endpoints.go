package host

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/hookflow/hookflow/internal/yamlconf"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/gateway/internal/filter"
)

// EndpointConfig is a virtual endpoint: a path of the MCP listener that
// serves a server of its own, with what its selectors choose of the
// upstreams' entities, its tools as its overrides show them, and its own
// plugins (its own auth among them). A client of one endpoint sees and
// calls only that endpoint's entities. The file's keys are documented in
// docs/gateway.md ("Virtual endpoints").
type EndpointConfig struct {
	// Path is the endpoint's path, such as /mcp/support: requests to it,
	// and to the paths under it (its plugins' pages), go to its server.
	Path string `yaml:"path"`
	// Name is the name the endpoint's server gives its clients; "" is
	// the gateway's.
	Name string `yaml:"name"`
	// Select chooses the entities the endpoint serves: an entity is
	// served when one of the selectors selects it.
	Select []SelectConfig `yaml:"select"`
	// Overrides change how the endpoint's clients see tools, by the name
	// the gateway's own clients see.
	Overrides map[string]gateway.ToolOverride `yaml:"overrides"`
	// Plugins are the endpoint's plugins; the server's own are not
	// inherited.
	Plugins PluginsConfig `yaml:"plugins"`
}

// SelectConfig is a selector of an endpoint: what it selects of the
// upstreams it names.
type SelectConfig struct {
	// Upstreams are the names (or globs) of the upstreams it selects
	// from; none is every upstream.
	Upstreams        []string `yaml:"upstreams"`
	gateway.Selector `yaml:",inline"`
}

// upstreams returns the upstreams e mounts, in the order of all: each
// upstream one of e's selectors names, with those selectors and e's
// overrides.
func (e *EndpointConfig) upstreams(all []UpstreamConfig) []gateway.Upstream {
	var out []gateway.Upstream
	for _, u := range all {
		var sel []gateway.Selector
		for _, s := range e.Select {
			if len(s.Upstreams) == 0 || slices.ContainsFunc(s.Upstreams, func(p string) bool { return doublestar.MatchUnvalidated(p, u.Name) }) {
				sel = append(sel, s.Selector)
			}
		}
		if len(sel) == 0 {
			continue
		}
		c := u.Upstream
		c.Select, c.Overrides = sel, maps.Clone(e.Overrides)
		out = append(out, c)
	}
	return out
}

// validate checks the endpoint by itself: its path, its selectors (every
// upstream they name among names) and its overrides.
func (e *EndpointConfig) validate(names []string) error {
	var p problems
	switch {
	case e.Path == "":
		p.add("path", "an endpoint needs a path, such as /mcp/support")
	case !strings.HasPrefix(e.Path, "/") || strings.ContainsAny(e.Path, "?#%* \t\r\n") || e.Path == "/" ||
		strings.HasSuffix(e.Path, "/") || strings.Contains(e.Path, "//") || slices.Contains(strings.Split(e.Path, "/"), ".."):
		p.add("path", "want a path such as /mcp/support (no trailing slash, no query), got %q", e.Path)
	}
	if len(e.Select) == 0 {
		p.add("select", "endpoint %s selects nothing: add a selector, such as {upstreams: [files]} for everything of files", e.Path)
	}
	for i, s := range e.Select {
		at := fmt.Sprintf("select[%d]", i)
		for j, u := range s.Upstreams {
			field := fmt.Sprintf("%s.upstreams[%d]", at, j)
			if err := filter.Glob(u); err != nil {
				p.add(field, "%v", err)
			} else if !slices.ContainsFunc(names, func(n string) bool { return doublestar.MatchUnvalidated(u, n) }) {
				p.add(field, "%q names no upstream%s", u, yamlconf.DidYouMean(u, names))
			}
		}
		for _, list := range []struct {
			key      string
			patterns []string
		}{{"tools", s.Tools}, {"prompts", s.Prompts}, {"resources", s.Resources}} {
			for j, pat := range list.patterns {
				p.checked(fmt.Sprintf("%s.%s[%d]", at, list.key, j), pat, filter.Glob)
			}
		}
		if err := filter.CheckHints(s.Annotations); err != nil {
			p.add(at+".annotations", "%v", err)
		}
	}
	renamed := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(e.Overrides)) {
		o, at := e.Overrides[name], yamlconf.Join("overrides", name)
		if err := filter.CheckHints(o.Annotations); err != nil {
			p.add(at+".annotations", "%v", err)
		}
		if o.Name == "" {
			continue
		}
		if err := filter.ToolName(o.Name); err != nil {
			p.add(at+".name", "%v", err)
		} else if other, ok := renamed[o.Name]; ok {
			p.add(at+".name", "%s and %s are both renamed %q", other, name, o.Name)
		}
		renamed[o.Name] = name
	}
	return errors.Join(p...)
}

// checkEndpoints checks what the endpoints need of the rest of the
// configuration: an HTTP listener, paths that do not overlap, and with
// serve.endpoints_only nothing configured for the server's own path.
func (f *fileConfig) checkEndpoints(p *problems) {
	names := make([]string, 0, len(f.Upstreams))
	for _, u := range f.Upstreams {
		names = append(names, u.Name)
	}
	for i, e := range f.Endpoints {
		at := fmt.Sprintf("endpoints[%d]", i)
		p.under(at, e.validate(names))
		for j, o := range f.Endpoints[:i] {
			if e.Path != "" && (within(e.Path, o.Path) || within(o.Path, e.Path)) {
				p.add(at+".path", "endpoint %s overlaps endpoints[%d] (%s)", e.Path, j, o.Path)
			}
		}
	}
	switch {
	case len(f.Endpoints) > 0 && f.Serve.Stdio:
		p.add("endpoints", "endpoints are paths of the HTTP listener, and stdio serves none: serve http, or leave endpoints out")
	case f.Serve.EndpointsOnly && len(f.Endpoints) == 0:
		p.add("serve.endpoints_only", "no endpoint to serve: add endpoints, or leave endpoints_only out")
	case f.Serve.EndpointsOnly && (len(f.Plugins.List) > 0 || f.Plugins.Noop || len(f.Apps) > 0):
		p.add("serve.endpoints_only", "with endpoints_only the server's own path serves nothing, so its plugins and apps would run for no one: move them under an endpoint's plugins")
	}
}
