package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// HandlerPlugin is a plugin that serves the server's streamable HTTP
// itself, in front of the server's own handler: the auth plugin, which
// answers requests without a valid bearer token and serves the OAuth
// protected resource metadata. When a [Config] lists one (the server's
// first, else an app's), [Serve] serves HTTP with its handler.
type HandlerPlugin interface {
	framework.Plugin
	Handler(srv *framework.Server, opts *mcp.StreamableHTTPOptions) (http.Handler, error)
}

// ServeOptions are what [Serve] and [Explain] take besides a [Config].
type ServeOptions struct {
	// Logger logs the server's serving, its plugins' and its
	// upstreams'; nil is the Config's Log, to standard error.
	Logger *slog.Logger
	// Hurry, once closed while the server drains (ServeConfig.Drain),
	// ends the drain at once: a second SIGTERM does it in the hookflow
	// command.
	Hurry <-chan struct{}
}

func (o ServeOptions) logger(cfg *Config) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return cfg.Log.Logger(os.Stderr)
}

// Check checks cfg without serving it: that its health endpoints have an
// HTTP listener to be served on, that a plugin's pages to serve on it
// have a HandlerPlugin to stand behind, that serve.metrics has one
// plugin to serve and is set when a plugin serves metrics, and what each
// server checks (the apps' names; an endpoint's selectors and
// overrides), by building and starting the server and its endpoints'
// without upstreams or plugins. No
// plugin is built (building one may open files, or connect to
// interceptor hosts): each plugin's configuration is checked by its
// Validate, as loading the file does.
func Check(cfg *Config) error {
	if err := cfg.Serve.checkListeners(); err != nil {
		return err
	}
	if len(cfg.Endpoints) > 0 && cfg.Serve.Stdio {
		return errors.New("endpoints are paths of the HTTP listener, and stdio serves none: serve http, or leave endpoints out")
	}
	if err := checkPages(cfg); err != nil {
		return err
	}
	if err := metricsErr(cfg); err != nil {
		return err
	}
	for _, sp := range specs(cfg) {
		err := checkOffline(sp, upstreamPrefixes(cfg))
		if err != nil && sp.path != "" {
			return fmt.Errorf("endpoint %s: %w", sp.path, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkOffline checks the server sp describes as Check does.
func checkOffline(sp spec, prefixes map[string]string) error {
	if ups := sp.mounts(""); sp.path != "" {
		if err := (gateway.Config{Upstreams: ups}).Validate(); err != nil {
			return err
		}
	}
	s := &server{srv: framework.NewServer(&mcp.Implementation{Name: sp.name, Version: "1"}, nil), prefixes: prefixes}
	defer s.close()
	// offline checks p's plugins without building them.
	offline := func(p PluginsConfig) (PluginsConfig, error) {
		var errs []error
		for _, pc := range p.List {
			pc = pc.withUpstreams(s.prefixes)
			errs = append(errs, pc.Spec.validate(pc.Config))
		}
		return PluginsConfig{Noop: p.Noop}, errors.Join(errs...)
	}
	p, err := offline(sp.plugins)
	if err != nil {
		return err
	}
	if err := s.addPlugins(s.srv, p); err != nil {
		return err
	}
	for _, a := range sp.apps {
		p, err := offline(a.Plugins)
		if err != nil {
			return err
		}
		app, err := s.srv.App(a.Name)
		if err != nil {
			return err
		}
		if err := s.addPlugins(app, p); err != nil {
			return err
		}
	}
	return s.srv.Start()
}

// Explain builds the servers cfg describes, connecting their upstreams,
// and writes the ordered hook plan of flow to w: for every mounted entity
// it applies to, in the order of their names, or once for a flow about no
// entity; the gateway's own server's first, then each endpoint's under a
// line that names its path.
func Explain(w io.Writer, cfg *Config, flow flows.ID, opts ServeOptions) error {
	ss, err := newServers(cfg, opts.logger(cfg))
	if err != nil {
		return err
	}
	defer ss.close()
	for i, s := range ss {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		if s.path != "" {
			fmt.Fprintf(w, "endpoint %s:\n", s.path)
		}
		if err := s.explain(w, flow); err != nil {
			return err
		}
	}
	return nil
}

// explain writes the plans of flow on s, as Explain does.
func (s *server) explain(w io.Writer, flow flows.ID) error {
	info := flow.Info()
	if info.Entity == flows.EntityNone {
		text, err := s.srv.Explain(flow, "")
		io.WriteString(w, text)
		return err
	}
	var names []string
	for _, gw := range s.gateways {
		names = append(names, gw.Names(info.Entity)...)
	}
	slices.Sort(names)
	for i, name := range names {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		text, err := s.srv.Explain(flow, name)
		if err != nil {
			return err
		}
		io.WriteString(w, text)
	}
	return nil
}

// Serve builds the server cfg describes, connecting its upstreams, and
// serves it over stdio or streamable HTTP until ctx is done; then, over
// HTTP, readiness fails and it goes on serving for cfg.Serve.Drain (or
// until opts.Hurry is closed) before it shuts down. With cfg.Serve.Health
// or HealthAddr set it serves the health endpoints too, from before the
// upstreams connect: Health+"/live" answers 200 while the process serves,
// Health+"/ready" is [gateway.Gateways] of the server's gateways, or 503
// "stopping" once ctx is done. They need no credentials, and come before
// a [HandlerPlugin] on the MCP listener; so do the metrics, served with
// them at cfg.Serve.Metrics when it is set (see [MetricsPlugin]).
func Serve(ctx context.Context, cfg *Config, opts ServeOptions) error {
	logger := opts.logger(cfg)
	if !cfg.Serve.Stdio && cfg.Serve.HTTP == "" {
		return errors.New("nothing to serve: set serve.http or serve.stdio")
	}
	if err := cfg.Serve.checkListeners(); err != nil {
		return err
	}
	if err := metricsErr(cfg); err != nil {
		return err
	}
	var health *healthEndpoints
	if cfg.Serve.Health != "" || cfg.Serve.HealthAddr != "" {
		// A listener of their own opens first, so that probes see the
		// process live and not ready while the upstreams connect.
		health = newHealthEndpoints(cfg.Serve.Health)
		health.metrics.path = cfg.Serve.Metrics
		if cfg.Serve.HealthAddr != "" {
			stop, err := health.listen(cfg.Serve.HealthAddr, logger)
			if err != nil {
				return fmt.Errorf("health: %w", err)
			}
			defer stop()
		}
	}
	ss, err := newServers(cfg, logger)
	if err != nil {
		return err
	}
	defer ss.close()
	if health != nil {
		health.set(ss.gateways()...)
		if err := health.metrics.set(ss, logger); err != nil {
			return err
		}
	}
	return ss.serve(ctx, cfg.Serve, logger, health, opts.Hurry)
}

// serve serves the server until ctx is done, with the health endpoints
// on the MCP listener when health is not nil and has no listener of its
// own.
func (ss servers) serve(ctx context.Context, sc ServeConfig, logger *slog.Logger, health *healthEndpoints, hurry <-chan struct{}) error {
	if sc.Stdio {
		if len(ss) != 1 || ss[0].path != "" {
			return errors.New("endpoints are paths of the HTTP listener, and stdio serves none: serve http, or leave endpoints out")
		}
		s := ss[0]
		if _, err := s.withPages(nil, true, logger); err != nil {
			return err
		}
		return s.srv.Run(ctx, &mcp.StdioTransport{})
	}
	opts := &mcp.StreamableHTTPOptions{Stateless: sc.Stateless, SessionTimeout: sc.SessionTimeout}
	h, err := ss.handler(opts, logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", sc.HTTP)
	if err != nil {
		return err
	}
	if health != nil && sc.HealthAddr == "" {
		// The endpoints come before auth: probes carry no token.
		h = health.wrap(h)
		health.logServing(logger, ln.Addr())
	}
	logger.Info("hookflow gateway: serving streamable HTTP", slog.String("addr", ln.Addr().String()), slog.Bool("stateless", sc.Stateless))
	hs := framework.NewHTTPServer("", h)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if health != nil {
		health.stopping.Store(true)
	}
	if sc.Drain > 0 {
		drainFor(sc.Drain, logger, hurry)
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drainFor goes on serving for d, or until hurry is closed, while
// readiness fails: the load balancers that probe it stop sending it
// requests, and the requests they sent meanwhile are served.
func drainFor(d time.Duration, logger *slog.Logger, hurry <-chan struct{}) {
	logger.Info("hookflow gateway: draining: readiness fails, requests are still served", slog.Duration("drain", d))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		logger.Info("hookflow gateway: drained; shutting down")
	case <-hurry:
		logger.Info("hookflow gateway: a second signal; shutting down without draining further")
	}
}

// healthEndpoints serves the liveness and readiness endpoints under a path
// prefix: prefix+"/live" answers 200 while the process serves HTTP,
// prefix+"/ready" is [gateway.Gateways] of the gateways, or 503 "stopping"
// once the server is shutting down.
type healthEndpoints struct {
	live, ready string
	// readiness is the gateways' health handler, set once they are built.
	readiness atomic.Pointer[http.Handler]
	// stopping is set when the server is told to stop.
	stopping atomic.Bool
	// metrics are served with the endpoints (serve.metrics; metrics.go).
	metrics metricsEndpoint
}

// newHealthEndpoints returns the endpoints under prefix ("" for /health),
// not ready until set is called.
func newHealthEndpoints(prefix string) *healthEndpoints {
	prefix = strings.TrimSuffix(cmp.Or(prefix, "/health"), "/")
	e := &healthEndpoints{live: prefix + "/live", ready: prefix + "/ready"}
	// A gateway never attached: 503, "starting".
	e.set(gateway.New(gateway.Config{}))
	return e
}

// set makes readiness report on gws.
func (e *healthEndpoints) set(gws ...*gateway.Gateway) {
	var h http.Handler = gateway.Gateways(gws)
	e.readiness.Store(&h)
}

// wrap returns a handler that serves the endpoints, and every other path
// with next (not found when next is nil).
func (e *healthEndpoints) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == e.live:
			serveStatus(w, r, http.StatusOK, "live")
		case r.URL.Path == e.ready && e.stopping.Load():
			serveStatus(w, r, http.StatusServiceUnavailable, "stopping")
		case r.URL.Path == e.ready:
			(*e.readiness.Load()).ServeHTTP(w, r)
		case r.URL.Path == e.metrics.path && e.metrics.path != "":
			e.metrics.ServeHTTP(w, r)
		case next != nil:
			next.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// listen serves the endpoints on a listener of their own at addr, until
// stop is called.
func (e *healthEndpoints) listen(addr string, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e.logServing(logger, ln.Addr())
	hs := framework.NewHTTPServer("", e.wrap(nil))
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("hookflow gateway: serving health", slog.Any("err", err))
		}
	}()
	return func() { hs.Close() }, nil
}

func (e *healthEndpoints) logServing(logger *slog.Logger, addr net.Addr) {
	logger.Info("hookflow gateway: serving health", slog.String("addr", addr.String()), slog.String("live", e.live), slog.String("ready", e.ready))
}

// serveStatus answers a probe with code and {"status":status}.
func serveStatus(w http.ResponseWriter, r *http.Request, code int, status string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		fmt.Fprintf(w, "{\"status\":%q}\n", status)
	}
}
