package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// MetricsPlugin is a plugin whose metrics a scrape reads: the otel plugin
// configured with exporter prometheus. With [ServeConfig.Metrics] set,
// [Serve] serves its Metrics handler at that path, with the health
// endpoints, and adds the gateways' own instruments to its MeterProvider,
// read when scraped: each upstream's state, reconnections, dropped
// notifications, sessions and backlog, the notifications queued to client
// sessions and the client sessions open (docs/gateway.md, "Metrics").
// Its configuration tells [Check], before the plugin is built, that it
// serves metrics with a ServesMetrics() bool method.
type MetricsPlugin interface {
	framework.Plugin
	// Metrics returns the handler of the metrics once the plugin is
	// attached; nil when it serves none.
	Metrics() http.Handler
	MeterProvider() metric.MeterProvider
}

// servesMetrics is the configuration of a MetricsPlugin, which says
// before the plugin is built whether it serves metrics.
type servesMetrics interface{ ServesMetrics() bool }

// checkMetrics adds, as Serve would fail on them, a serve.metrics without
// one plugin to serve the metrics, a plugin configured to serve metrics
// that serve.metrics does not serve, and a serve.metrics that is a health
// endpoint's path, each at its key: the file's Validate reports them at
// their line, Check and Serve with their key's name.
func checkMetrics(cfg *Config, add func(field, format string, args ...any)) {
	var serving []string
	at := func(where string, p PluginsConfig) {
		for _, pc := range p.List {
			if c, ok := pc.Config.(servesMetrics); ok && c.ServesMetrics() {
				serving = append(serving, where+"plugins."+pc.Spec.Name())
			}
		}
	}
	at("", cfg.Plugins)
	for i, a := range cfg.Apps {
		at(fmt.Sprintf("apps[%d].", i), a.Plugins)
	}
	for i, e := range cfg.Endpoints {
		at(fmt.Sprintf("endpoints[%d].", i), e.Plugins)
	}
	path := cfg.Serve.Metrics
	health := strings.TrimSuffix(cfg.Serve.Health, "/")
	if health == "" {
		health = "/health"
	}
	switch {
	case path == "" && len(serving) > 0:
		add(serving[0]+".exporter", "the metrics of exporter prometheus are scraped at serve.metrics, which is not set: set it to a path such as /metrics")
	case path == "":
	case len(serving) == 0:
		add("serve.metrics", "no plugin serves metrics: configure plugins.otel with exporter: prometheus")
	case len(serving) > 1:
		add(serving[1]+".exporter", "serve.metrics serves one plugin's metrics, and %s serves them already: keep one (a server's plugin measures its apps' runs too)", serving[0])
	case path == health+"/live" || path == health+"/ready":
		add("serve.metrics", "%s is a health endpoint's path: choose another, such as /metrics", path)
	case cfg.Serve.HealthAddr == "":
		// On the MCP listener, the metrics come before the endpoints.
		for _, e := range cfg.Endpoints {
			if within(path, e.Path) {
				add("serve.metrics", "%s is served on the MCP listener, where it hides endpoint %s: choose another path, or serve.health_addr", path, e.Path)
				break
			}
		}
	}
}

// metricsErr returns the problems checkMetrics finds in cfg as one error,
// each led by its key.
func metricsErr(cfg *Config) error {
	var errs []error
	checkMetrics(cfg, func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	})
	return errors.Join(errs...)
}

// metricsEndpoint serves a MetricsPlugin's metrics at path, or 503
// "starting" until set finds the plugin.
type metricsEndpoint struct {
	path string
	h    atomic.Pointer[http.Handler]
}

// ServeHTTP answers a scrape.
func (m *metricsEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := m.h.Load()
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case h == nil:
		http.Error(w, "starting", http.StatusServiceUnavailable)
	default:
		(*h).ServeHTTP(w, r)
	}
}

// set serves the metrics of the MetricsPlugin of ss, its instruments
// joined by those of every gateway of ss; it does nothing when m has no
// path.
func (m *metricsEndpoint) set(ss servers, logger *slog.Logger) error {
	if m.path == "" {
		return nil
	}
	var mp MetricsPlugin
	var h http.Handler
	for _, s := range ss {
		for _, p := range s.plugins {
			if c, ok := p.(MetricsPlugin); ok && c.Metrics() != nil {
				if mp != nil {
					return fmt.Errorf("serve.metrics: %s and %s both serve metrics: keep one", mp.Name(), c.Name())
				}
				mp, h = c, c.Metrics()
			}
		}
	}
	if mp == nil {
		return errors.New("serve.metrics: no plugin serves metrics: configure plugins.otel with exporter: prometheus")
	}
	if err := observeGateways(mp.MeterProvider().Meter(meterName), ss); err != nil {
		return fmt.Errorf("serve.metrics: %w", err)
	}
	m.h.Store(&h)
	logger.Info("hookflow gateway: serving metrics with the health endpoints", slog.String("path", m.path), slog.String("plugin", mp.Name()))
	return nil
}

// meterName is the instrumentation scope of the gateways' instruments.
const meterName = "github.com/hookflow/hookflow/plugins/gateway"

// observeGateways adds to meter the instruments of the gateways and
// client sessions of ss, observed when the metrics are read (never on a
// call's path). An upstream a virtual endpoint mounts is observed once
// for each endpoint, with its path.
func observeGateways(meter metric.Meter, ss servers) error {
	var errs []error
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		opts := []metric.Int64ObservableGaugeOption{metric.WithDescription(desc)}
		if unit != "" {
			// A unit of "1" would append _ratio to the name a scrape shows.
			opts = append(opts, metric.WithUnit(unit))
		}
		g, err := meter.Int64ObservableGauge(name, opts...)
		errs = append(errs, err)
		return g
	}
	counter := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	up := gauge("hookflow.gateway.upstream.up", "", "1 while the upstream answers, else 0, per upstream and its state (connecting, up, down, closed).")
	reconnects := counter("hookflow.gateway.upstream.reconnects", "{reconnection}", "Successful reconnections of the upstream's own session, per upstream.")
	dropped := counter("hookflow.gateway.upstream.dropped", "{notification}", "Notifications of the upstream dropped for client sessions that read too slowly, per upstream.")
	sessions := gauge("hookflow.gateway.upstream.sessions", "{session}", "Upstream sessions open, the gateway's own and the client sessions', per upstream.")
	backlog := gauge("hookflow.gateway.upstream.backlog", "{notification}", "Notifications read from the upstream's sessions that the gateway has not handled yet, per upstream.")
	queued := gauge("hookflow.gateway.client.queued", "{notification}", "Notifications of upstreams waiting in the queues to client sessions.")
	clients := gauge("hookflow.gateway.sessions", "{session}", "Client sessions open on the gateway.")
	if err := errors.Join(errs...); err != nil {
		return err
	}
	_, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		var q, n int64
		for _, gw := range ss.gateways() {
			l := gw.Load()
			q += int64(l.Queued)
			attrs := func(upstream string, more ...attribute.KeyValue) metric.MeasurementOption {
				kvs := append([]attribute.KeyValue{attribute.String("hookflow.upstream", upstream)}, more...)
				if l.Endpoint != "" {
					kvs = append(kvs, attribute.String("hookflow.endpoint", l.Endpoint))
				}
				return metric.WithAttributes(kvs...)
			}
			for _, h := range gw.Health() {
				v := int64(0)
				if h.State == gateway.StateUp {
					v = 1
				}
				o.ObserveInt64(up, v, attrs(h.Upstream, attribute.String("hookflow.upstream.state", h.State.String())))
				o.ObserveInt64(reconnects, int64(h.Reconnects), attrs(h.Upstream))
				o.ObserveInt64(dropped, int64(h.Dropped), attrs(h.Upstream))
			}
			for _, u := range l.Upstreams {
				o.ObserveInt64(sessions, int64(u.Sessions), attrs(u.Upstream))
				o.ObserveInt64(backlog, int64(u.Backlog), attrs(u.Upstream))
			}
		}
		for _, s := range ss {
			for range s.srv.SDK().Sessions() {
				n++
			}
		}
		o.ObserveInt64(queued, q)
		o.ObserveInt64(clients, n)
		return nil
	}, up, reconnects, dropped, sessions, backlog, queued, clients)
	return err
}
