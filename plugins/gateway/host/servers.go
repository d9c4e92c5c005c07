package host

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/stages"
)

// spec is one of the servers a Config describes: the gateway's own, or a
// virtual endpoint's.
type spec struct {
	name string
	// path is the endpoint's; "" for the gateway's own server, served at
	// every other path.
	path    string
	plugins PluginsConfig
	apps    []AppConfig
	// mounts returns the upstreams mounted into app ("" the server).
	mounts func(app string) []gateway.Upstream
}

// specs returns the servers cfg describes: the gateway's own (unless
// serve.endpoints_only), then its endpoints, in the order of the file.
func specs(cfg *Config) []spec {
	name := cmp.Or(cfg.Name, defaultName)
	var out []spec
	if !cfg.Serve.EndpointsOnly {
		out = append(out, spec{name: name, plugins: cfg.Plugins, apps: cfg.Apps, mounts: func(app string) []gateway.Upstream {
			var ups []gateway.Upstream
			for _, u := range cfg.Upstreams {
				if u.App == app {
					ups = append(ups, u.Upstream)
				}
			}
			return ups
		}})
	}
	for i := range cfg.Endpoints {
		e := &cfg.Endpoints[i]
		out = append(out, spec{name: cmp.Or(e.Name, name), path: e.Path, plugins: e.Plugins, mounts: func(app string) []gateway.Upstream {
			if app != "" {
				return nil
			}
			return e.upstreams(cfg.Upstreams)
		}})
	}
	return out
}

// server is a gateway server built from a spec, started.
type server struct {
	// path is its endpoint's path; "" for the gateway's own server.
	path     string
	srv      *framework.Server
	gateways []*gateway.Gateway
	// front is the plugin whose handler serves HTTP, if any.
	front HandlerPlugin
	// pages are the plugins that serve pages of their own.
	pages []PagesPlugin
	// plugins are the plugins built, which end with the server: an
	// intercept plugin's hosts' commands, an audit plugin's queue.
	plugins []framework.Plugin
	// prefixes are the upstreams' prefixes by name, handed to the
	// plugins that are UpstreamAware.
	prefixes map[string]string
}

func (s *server) close() {
	for _, gw := range s.gateways {
		gw.Close()
	}
	for _, p := range s.plugins {
		switch c := p.(type) {
		case interface{ Close(context.Context) error }:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = c.Close(ctx)
			cancel()
		case interface{ Close() error }:
			_ = c.Close()
		}
	}
}

// servers are the servers a Config describes, built and started.
type servers []*server

// newServers builds and starts every server cfg describes.
func newServers(cfg *Config, logger *slog.Logger) (servers, error) {
	var ss servers
	for _, sp := range specs(cfg) {
		s, err := newServer(sp, upstreamPrefixes(cfg), logger)
		if err != nil {
			ss.close()
			return nil, err
		}
		ss = append(ss, s)
	}
	return ss, nil
}

func (ss servers) close() {
	for _, s := range ss {
		s.close()
	}
}

// gateways returns the gateways of every server.
func (ss servers) gateways() []*gateway.Gateway {
	var gws []*gateway.Gateway
	for _, s := range ss {
		gws = append(gws, s.gateways...)
	}
	return gws
}

// newServer builds and starts the server sp describes: its plugins,
// apps and gateways; the upstreams are connected.
func newServer(sp spec, prefixes map[string]string, logger *slog.Logger) (*server, error) {
	s := &server{path: sp.path, prefixes: prefixes}
	if sp.path != "" {
		logger = logger.With(slog.String("endpoint", sp.path))
	}
	s.srv = framework.NewServer(&mcp.Implementation{Name: sp.name, Version: "1"}, &framework.Options{
		Logger:      logger,
		Subscribe:   s.subscribe,
		Unsubscribe: s.unsubscribe,
	})
	if err := s.addPlugins(s.srv, sp.plugins); err != nil {
		s.close()
		return nil, err
	}
	mount := func(r interface {
		Use(...framework.Plugin) error
	}, app string) error {
		ups := sp.mounts(app)
		if len(ups) == 0 {
			return nil
		}
		gw := gateway.New(gateway.Config{Upstreams: ups, Peers: s.gateways, Endpoint: sp.path})
		s.gateways = append(s.gateways, gw)
		return r.Use(gw)
	}
	if err := mount(s.srv, ""); err != nil {
		s.close()
		return nil, err
	}
	for _, a := range sp.apps {
		app, err := s.srv.App(a.Name)
		if err == nil {
			err = s.addPlugins(app, a.Plugins)
		}
		if err == nil {
			err = mount(app, a.Name)
		}
		if err != nil {
			s.close()
			return nil, err
		}
	}
	if err := s.srv.Start(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	for _, gw := range s.gateways {
		if err := gw.Subscribe(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

func (s *server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	for _, gw := range s.gateways {
		if err := gw.Unsubscribe(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

// user is what the server's or an app's plugins are added to.
type user interface {
	Use(...framework.Plugin) error
	Hook(...flows.Hook) error
}

// addPlugins builds the plugins p configures and adds them to r, in the
// order of the file (their priorities order their hooks whatever the
// order).
func (s *server) addPlugins(r user, p PluginsConfig) error {
	var ps []framework.Plugin
	for _, pc := range p.List {
		built, err := pc.withUpstreams(s.prefixes).New()
		if err != nil {
			return err
		}
		s.plugins = append(s.plugins, built)
		if h, ok := built.(HandlerPlugin); ok && s.front == nil {
			s.front = h
		}
		if pg, ok := built.(PagesPlugin); ok {
			s.pages = append(s.pages, pg)
		}
		ps = append(ps, built)
	}
	if err := r.Use(ps...); err != nil {
		return err
	}
	if p.Noop {
		return r.Hook(noopHooks()...)
	}
	return nil
}

// noopHooks are hooks that do nothing, one at every stage of every flow.
func noopHooks() []flows.Hook {
	var hs []flows.Hook
	for _, f := range flows.All() {
		for _, st := range stages.All() {
			hs = append(hs, flows.Hook{Flow: f.ID, Stage: st, Name: "noop", Fn: func(*flows.Context) error { return nil }})
		}
	}
	return hs
}

// handler returns the server's streamable HTTP handler: its front's, or
// its own, with its plugins' pages in front of it.
func (s *server) handler(opts *mcp.StreamableHTTPOptions, logger *slog.Logger) (http.Handler, error) {
	var h http.Handler
	var err error
	if s.front != nil {
		h, err = s.front.Handler(s.srv, opts)
	} else {
		h, err = s.srv.HTTPHandler(opts)
	}
	if err != nil {
		return nil, err
	}
	return s.withPages(h, false, logger)
}

// wellKnownResource is the path prefix of OAuth protected resource
// metadata (RFC 9728): an endpoint's auth plugin serves its own at this
// prefix followed by the endpoint's path.
const wellKnownResource = "/.well-known/oauth-protected-resource"

// handler returns the handler of the HTTP listener: each endpoint's
// server at its path, the paths under it and its protected resource
// metadata's well-known path; the gateway's own server at every other
// path (404 without one).
func (ss servers) handler(opts *mcp.StreamableHTTPOptions, logger *slog.Logger) (http.Handler, error) {
	type routed struct {
		path string
		h    http.Handler
	}
	var eps []routed
	var main http.Handler = http.NotFoundHandler()
	for _, s := range ss {
		h, err := s.handler(opts, logger)
		if err != nil {
			if s.path != "" {
				return nil, fmt.Errorf("endpoint %s: %w", s.path, err)
			}
			return nil, err
		}
		if s.path == "" {
			main = h
			continue
		}
		eps = append(eps, routed{s.path, h})
		logger.Info("hookflow gateway: serving an endpoint", slog.String("path", s.path), slog.Int("upstreams", len(s.gateways)))
	}
	if len(eps) == 0 {
		return main, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, e := range eps {
			if within(r.URL.Path, e.path) || r.URL.Path == wellKnownResource+e.path {
				e.h.ServeHTTP(w, r)
				return
			}
		}
		main.ServeHTTP(w, r)
	}), nil
}
