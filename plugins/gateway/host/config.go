package host

import (
	"io"
	"log/slog"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// Config is a gateway server: what the hookflow gateway command's
// configuration file describes (docs/gateway.md), with the command's flags
// applied. [Serve] serves it, [Explain] prints its plans and [Check]
// checks it without serving.
type Config struct {
	// Name is the name the server gives its clients; "" is
	// "hookflow-gateway".
	Name string `yaml:"name"`
	// Log is how the server logs.
	Log LogConfig `yaml:"log"`
	// Serve is how the server is served: over stdio or streamable HTTP,
	// with or without health endpoints.
	Serve ServeConfig `yaml:"serve"`
	// Upstreams are the MCP servers mounted into the server or its apps.
	Upstreams []UpstreamConfig `yaml:"upstreams"`
	// Plugins are the server's plugins.
	Plugins PluginsConfig `yaml:"plugins"`
	// Apps are the server's apps, each with its plugins.
	Apps []AppConfig `yaml:"apps"`
	// Endpoints are the virtual endpoints served beside the server, each
	// at its path of the HTTP listener.
	Endpoints []EndpointConfig `yaml:"endpoints"`
	// Warnings are what the file gives that still works but will not
	// (deprecated keys), each at its file:line:col, in the order of the
	// file: the hookflow command prints them with -check and logs them
	// at start-up.
	Warnings []error `yaml:"-"`
}

// defaultName is the name a server gives its clients when its Config's
// Name is "".
const defaultName = "hookflow-gateway"

// DefaultSessionTimeout is [ServeConfig.SessionTimeout] when a
// configuration file leaves it out.
const DefaultSessionTimeout = 30 * time.Minute

// ServeConfig is how a gateway server is served.
type ServeConfig struct {
	// Stdio serves one client over standard input and output.
	Stdio bool `yaml:"stdio"`
	// HTTP is the address streamable HTTP is served on, host:port.
	HTTP string `yaml:"http"`
	// Stateless serves streamable HTTP without sessions.
	Stateless bool `yaml:"stateless"`
	// Health is the path prefix of the health endpoints (Health+"/live"
	// and Health+"/ready"), served on the MCP listener or, when
	// HealthAddr is set, on a listener of their own; both "" is off.
	Health string `yaml:"health"`
	// HealthAddr is the address of the health endpoints' own listener,
	// host:port; they are under /health there unless Health says.
	HealthAddr string `yaml:"health_addr"`
	// Metrics is the path the metrics are served at in the Prometheus
	// text format, with the health endpoints (so Health or HealthAddr
	// must be set): those of the otel plugin configured with exporter
	// prometheus, which must be configured then, plus the gateway's
	// upstreams, sessions and queues (see [MetricsPlugin]); "" is off.
	Metrics string `yaml:"metrics"`
	// Drain is how long the gateway goes on serving HTTP after it is
	// told to stop, with readiness failing, before it shuts down: the
	// time a load balancer needs to stop sending it requests. 0 shuts
	// down at once.
	Drain time.Duration `yaml:"drain"`
	// SessionTimeout closes a stateful HTTP client session, and with it
	// its upstream sessions (a stdio upstream's process), after that long
	// without a request from its client: a client that vanished without
	// ending its session would otherwise hold them forever. 0 never
	// closes one.
	SessionTimeout time.Duration `yaml:"session_timeout"`
	// EndpointsOnly serves the virtual endpoints alone: every other path
	// of the HTTP listener but the health endpoints answers 404, and the
	// server's own plugins, apps and mounts are not built.
	EndpointsOnly bool `yaml:"endpoints_only"`
}

// LogConfig is how a gateway server logs.
type LogConfig struct {
	// Format is text (the default) or json, for JSON lines.
	Format string `yaml:"format"`
	// Level is the least level logged: debug, info, warn or error; nil
	// is info.
	Level *slog.Level `yaml:"level"`
}

// Logger returns a logger writing to w as l says.
func (l LogConfig) Logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if l.Level != nil {
		opts.Level = *l.Level
	}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// UpstreamConfig is an upstream and where it is mounted.
// The file's keys of an upstream are documented in docs/gateway.md.
type UpstreamConfig struct {
	gateway.Upstream `yaml:",inline"`
	// App is the app the upstream is mounted into; "" the server.
	App string `yaml:"app"`
}

// AppConfig is an app of a gateway server.
type AppConfig struct {
	// Name is the app's name.
	Name string `yaml:"name"`
	// Plugins are the app's plugins.
	Plugins PluginsConfig `yaml:"plugins"`
}

// PluginsConfig is the plugins of a gateway server or of one of its apps:
// in a file, a mapping of the plugins' names to their sections, with
// noop.
type PluginsConfig struct {
	// Noop registers a hook that does nothing at every stage of every
	// flow: what the conformance run and the benchmark use to show the
	// cost and the transparency of hooks everywhere.
	Noop bool
	// List are the plugins, each with its configuration, in the order of
	// the file.
	List []PluginConfig
}

// PluginConfig is a plugin and its configuration, a value of the type its
// spec's Config returns.
type PluginConfig struct {
	Spec   PluginSpec
	Config any
}

// New validates the configuration and builds the plugin.
func (p PluginConfig) New() (framework.Plugin, error) { return p.Spec.New(p.Config) }
