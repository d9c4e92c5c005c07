package gateway

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/gateway/internal/filter"
)

// Selector chooses entities of an upstream by the names and URIs its
// clients see (after [Upstream.Prefix] and [Upstream.ResourcePrefix],
// before [Upstream.Overrides] renames them) and by a tool's annotations.
// Each pattern is a name or a glob ([doublestar] syntax: * matches within
// a path segment, ** across segments, so "file:///docs/**" selects every
// URI under /docs). A selector selects:
//   - tools when Tools or Annotations is set: those whose name a pattern
//     of Tools matches (every tool when Tools is empty) and whose
//     annotations have each of Annotations' values;
//   - prompts when Prompts is set: those a pattern matches;
//   - resources and resource templates when Resources is set: those whose
//     URI or URI template a pattern matches;
//   - everything of the upstream when none of them is set.
type Selector struct {
	Tools     []string `yaml:"tools"`
	Prompts   []string `yaml:"prompts"`
	Resources []string `yaml:"resources"`
	// Annotations are hints a tool's annotations must have, by their
	// names in the protocol (readOnlyHint, destructiveHint,
	// idempotentHint, openWorldHint), the protocol's defaults filled in
	// for a tool that leaves one out (destructive and open-world unless
	// it says not).
	Annotations map[string]bool `yaml:"annotations"`
}

// ToolOverride is how the server's clients see one tool: each field set
// replaces the upstream's. Name is the whole name clients see and call
// (no Prefix is added to it); calls still reach the upstream under its
// own name. Annotations set hints by their protocol names (see
// [Selector.Annotations]), leaving the others as the upstream gave them.
type ToolOverride struct {
	Name        string          `yaml:"name"`
	Title       string          `yaml:"title"`
	Description string          `yaml:"description"`
	Annotations map[string]bool `yaml:"annotations"`
}

// hint returns the value of a tool's hint named name, the protocol's
// default when a leaves it out.
func hint(a *mcp.ToolAnnotations, name string) bool {
	switch name {
	case "readOnlyHint":
		return a != nil && a.ReadOnlyHint
	case "idempotentHint":
		return a != nil && a.IdempotentHint
	case "destructiveHint":
		return a == nil || a.DestructiveHint == nil || *a.DestructiveHint
	}
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint // openWorldHint
}

// matchAny reports whether one of patterns (checked by checkSelection)
// matches s.
func matchAny(patterns []string, s string) bool {
	for _, p := range patterns {
		if doublestar.MatchUnvalidated(p, s) {
			return true
		}
	}
	return false
}

func (s *Selector) all() bool {
	return s.Tools == nil && s.Prompts == nil && s.Resources == nil && len(s.Annotations) == 0
}

func (s *Selector) tool(name string, a *mcp.ToolAnnotations) bool {
	if s.all() {
		return true
	}
	if s.Tools == nil && len(s.Annotations) == 0 {
		return false
	}
	if len(s.Tools) > 0 && !matchAny(s.Tools, name) {
		return false
	}
	for h, want := range s.Annotations {
		if hint(a, h) != want {
			return false
		}
	}
	return true
}

func (s *Selector) prompt(name string) bool {
	return s.all() || matchAny(s.Prompts, name)
}

func (s *Selector) resource(uri string) bool {
	return s.all() || matchAny(s.Resources, uri)
}

// selectAny reports whether one of sel selects what ok says it selects.
func selectAny(sel []Selector, ok func(s *Selector) bool) bool {
	for i := range sel {
		if ok(&sel[i]) {
			return true
		}
	}
	return false
}

// toolName returns the name the server's clients see for the upstream's
// tool named name: its override's Name, else Prefix and name.
func (c *Upstream) toolName(name string) string {
	n := c.Prefix + name
	if o, ok := c.Overrides[n]; ok && o.Name != "" {
		return o.Name
	}
	return n
}

// selectAndOverride returns l with only what c.Select selects, and the
// tools c.Overrides changes replaced by changed copies (which keep the
// upstream's name, the one calls go by).
func (c *Upstream) selectAndOverride(l listing) listing {
	if len(c.Select) > 0 {
		l.tools = slices.DeleteFunc(slices.Clone(l.tools), func(t *mcp.Tool) bool {
			return !selectAny(c.Select, func(s *Selector) bool { return s.tool(c.Prefix+t.Name, t.Annotations) })
		})
		l.prompts = slices.DeleteFunc(slices.Clone(l.prompts), func(p *mcp.Prompt) bool {
			return !selectAny(c.Select, func(s *Selector) bool { return s.prompt(c.Prefix + p.Name) })
		})
		l.resources = slices.DeleteFunc(slices.Clone(l.resources), func(r *mcp.Resource) bool {
			return !selectAny(c.Select, func(s *Selector) bool { return s.resource(c.exposedURI(r.URI)) })
		})
		l.templates = slices.DeleteFunc(slices.Clone(l.templates), func(t *mcp.ResourceTemplate) bool {
			return !selectAny(c.Select, func(s *Selector) bool { return s.resource(c.exposedURI(t.URITemplate)) })
		})
	}
	if len(c.Overrides) == 0 {
		return l
	}
	tools := slices.Clone(l.tools)
	for i, t := range tools {
		if o, ok := c.Overrides[c.Prefix+t.Name]; ok {
			tools[i] = o.apply(t)
		}
	}
	l.tools = tools
	return l
}

// apply returns a copy of t as o shows it, with t's name.
func (o ToolOverride) apply(t *mcp.Tool) *mcp.Tool {
	c := *t
	if o.Title != "" {
		c.Title = o.Title
	}
	if o.Description != "" {
		c.Description = o.Description
	}
	if len(o.Annotations) > 0 {
		a := mcp.ToolAnnotations{}
		if t.Annotations != nil {
			a = *t.Annotations
		}
		for h, v := range o.Annotations {
			switch h {
			case "readOnlyHint":
				a.ReadOnlyHint = v
			case "idempotentHint":
				a.IdempotentHint = v
			case "destructiveHint":
				a.DestructiveHint = &v
			case "openWorldHint":
				a.OpenWorldHint = &v
			}
		}
		c.Annotations = &a
	}
	return &c
}

// warnUnmatched logs each override of the upstreams' that names none of
// the tools they first listed: a misspelt name would otherwise change
// nothing silently. An endpoint gives every upstream it mounts all its
// overrides, so an override is unmatched when no upstream has its tool.
func (g *Gateway) warnUnmatched() {
	names := map[string]bool{}
	for _, u := range g.ups {
		u.mu.Lock()
		for _, t := range u.listed.tools {
			names[u.cfg.Prefix+t.Name] = true
		}
		u.mu.Unlock()
	}
	warned := map[string]bool{}
	for _, u := range g.ups {
		for _, name := range slices.Sorted(maps.Keys(u.cfg.Overrides)) {
			if !names[name] && !warned[name] && !u.cfg.Optional {
				warned[name] = true
				g.log.Warn("gateway: an override names none of the tools the gateway mounts", slog.String("tool", name))
			}
		}
	}
}

// checkSelection checks an upstream's selectors and overrides.
func checkSelection(c *Upstream) error {
	for i, s := range c.Select {
		for _, list := range [][]string{s.Tools, s.Prompts, s.Resources} {
			for _, p := range list {
				if err := filter.Glob(p); err != nil {
					return invalid(fmt.Sprintf("upstream %q: Select[%d]: %v", c.Name, i, err))
				}
			}
		}
		if err := filter.CheckHints(s.Annotations); err != nil {
			return invalid(fmt.Sprintf("upstream %q: Select[%d].Annotations: %v", c.Name, i, err))
		}
	}
	renamed := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(c.Overrides)) {
		o := c.Overrides[name]
		if err := filter.CheckHints(o.Annotations); err != nil {
			return invalid(fmt.Sprintf("upstream %q: Overrides[%q].Annotations: %v", c.Name, name, err))
		}
		if o.Name == "" {
			continue
		}
		if err := filter.ToolName(o.Name); err != nil {
			return invalid(fmt.Sprintf("upstream %q: Overrides[%q].Name: %v", c.Name, name, err))
		}
		if other, ok := renamed[o.Name]; ok {
			return invalid(fmt.Sprintf("upstream %q: Overrides[%q] and Overrides[%q] both rename to %q", c.Name, other, name, o.Name))
		}
		renamed[o.Name] = name
	}
	return nil
}
