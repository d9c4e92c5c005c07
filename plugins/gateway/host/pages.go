package host

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hookflow/hookflow/framework"
)

// PagesPlugin is a plugin that serves web pages of its own under a path:
// the console. When it has no listener of its own, [Serve] serves its
// pages on the MCP listener behind the middleware of the [HandlerPlugin]
// (the auth plugin), so that only a verified bearer token reaches them;
// the plugin checks what the token may see (the console: its scope).
type PagesPlugin interface {
	framework.Plugin
	// Pages returns the path the pages are under and their handler, once
	// the plugin is attached; "" when it serves them on a listener of its
	// own.
	Pages() (path string, h http.Handler)
}

// middlewarePlugin is a HandlerPlugin whose middleware can stand in front
// of other handlers: the auth plugin's.
type middlewarePlugin interface {
	Middleware() (func(http.Handler) http.Handler, error)
}

// mountedPages is a PagesPlugin's pages, behind the front's middleware.
type mountedPages struct {
	path string
	h    http.Handler
}

// withPages returns mcp with the pages of s's PagesPlugins in front of
// it, each behind the front's middleware: an error when they need it and
// s has no front, or two serve the same path. Over stdio there is no MCP
// listener: pages without a listener of their own are not served, which
// it logs.
func (s *server) withPages(mcp http.Handler, stdio bool, logger *slog.Logger) (http.Handler, error) {
	var pages []mountedPages
	for _, pg := range s.pages {
		path, h := pg.Pages()
		switch {
		case path == "" || h == nil:
			continue
		case stdio:
			logger.Warn("hookflow gateway: the plugin's pages are not served: it has no listener of its own (addr) and the gateway serves stdio", slog.String("plugin", pg.Name()))
			continue
		}
		if s.path != "" && !within(path, s.path) {
			return nil, fmt.Errorf("%s: its pages' path %s is not under its endpoint's path %s: set its path to one under it, such as %s", pg.Name(), path, s.path, s.path+path)
		}
		mw, ok := s.front.(middlewarePlugin)
		if !ok {
			return nil, fmt.Errorf("%s: no listener of its own (addr), and no auth plugin to serve its pages behind on the MCP listener: configure plugins.auth, or give %s an addr", pg.Name(), pg.Name())
		}
		wrap, err := mw.Middleware()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pg.Name(), err)
		}
		for _, o := range pages {
			if within(path, o.path) || within(o.path, path) {
				return nil, fmt.Errorf("%s: its pages' path %s overlaps %s, another plugin's", pg.Name(), path, o.path)
			}
		}
		pages = append(pages, mountedPages{path: path, h: wrap(h)})
		logger.Info("hookflow gateway: serving pages on the MCP listener, behind auth", slog.String("plugin", pg.Name()), slog.String("path", path))
	}
	if len(pages) == 0 {
		return mcp, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range pages {
			if within(r.URL.Path, p.path) {
				p.h.ServeHTTP(w, r)
				return
			}
		}
		mcp.ServeHTTP(w, r)
	}), nil
}

// within reports whether path is base or under it.
func within(path, base string) bool {
	return path == base || strings.HasPrefix(path, strings.TrimSuffix(base, "/")+"/")
}

// onMCPListener is the configuration of a PagesPlugin that says, before
// the plugin is built, whether the host is to serve its pages on the MCP
// listener (it has no listener of its own): the console's.
type onMCPListener interface{ OnHostListener() bool }

// checkPages reports, as Serve would, a plugin configured to serve its
// pages on the MCP listener of a server (the gateway's own, or an
// endpoint's) with no plugin to put in front of them.
func checkPages(cfg *Config) error {
	if cfg.Serve.Stdio {
		return nil
	}
	for _, sp := range specs(cfg) {
		lists := []PluginsConfig{sp.plugins}
		for _, a := range sp.apps {
			lists = append(lists, a.Plugins)
		}
		front, pages := false, ""
		for _, l := range lists {
			for _, pc := range l.List {
				front = front || pc.Spec.front
				if c, ok := pc.Config.(onMCPListener); ok && c.OnHostListener() && pages == "" {
					pages = pc.Spec.Name()
				}
			}
		}
		if pages == "" || front {
			continue
		}
		err := fmt.Errorf("%s: no listener of its own (addr), and no auth plugin to serve its pages behind on the MCP listener: configure plugins.auth, or give %s an addr", pages, pages)
		if sp.path != "" {
			return fmt.Errorf("endpoint %s: %w", sp.path, err)
		}
		return err
	}
	return nil
}
