package otel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
)

// Config configures the plugin. The zero value traces every flow with the
// global providers and propagator.
//
// Config is also the plugin's section of a configuration file: a file
// picks an exporter (Exporter and the fields after it), whose providers
// the plugin builds at Attach with package otelsetup and stops at
// [Plugin.Close]. The providers, the propagator and AuditDropped are
// Go-only.
type Config struct {
	// TracerProvider makes the plugin's tracer; nil uses the one Exporter
	// builds, else the global one. Go-only.
	TracerProvider trace.TracerProvider `yaml:"-"`
	// MeterProvider makes the plugin's meter; nil uses the one Exporter
	// builds, else the global one. Go-only.
	MeterProvider metric.MeterProvider `yaml:"-"`
	// Propagator extracts the client's trace context from a request's
	// params._meta; nil uses W3C trace context and baggage. Go-only.
	Propagator propagation.TextMapPropagator `yaml:"-"`
	// Flows are the flows traced, by ID (e.g. "tools:call-tool"); nil
	// (the default) traces every flow.
	Flows []flows.ID `yaml:"flows"`
	// AuditDropped, when set, is read for the hookflow.audit.dropped
	// counter: pass the audit plugin's Dropped method. Go-only.
	AuditDropped func() uint64 `yaml:"-"`

	// Exporter is where spans and metrics go when the Go providers are
	// nil: "otlp" (OTLP over HTTP to a collector), "stdout" or "stderr"
	// (JSON lines, for debugging; not "stdout" when the server speaks MCP
	// over stdio), or "prometheus" (metrics read when scraped, served by
	// [Plugin.Metrics]; no spans exported). Default "": the Go providers,
	// else the global ones.
	Exporter string `yaml:"exporter"`
	// Endpoint is the collector's host and port for the otlp exporter,
	// without a scheme, e.g. "collector:4318". Default: the
	// OTEL_EXPORTER_OTLP_ENDPOINT variable, else localhost:4318.
	Endpoint string `yaml:"endpoint"`
	// Insecure exports to the collector over plain HTTP instead of HTTPS
	// (otlp exporter; default false).
	Insecure bool `yaml:"insecure"`
	// HeadersEnv are headers sent with every OTLP export, by header name,
	// each holding the NAME of the environment variable whose value is
	// sent (read at Attach, which fails when it is unset), so that a file
	// holds no secret: {Authorization: COLLECTOR_AUTH}. Default none.
	HeadersEnv map[string]string `yaml:"headers_env"`
	// ServiceName names the service in the exported resource
	// (service.name); default "hookflow".
	ServiceName string `yaml:"service_name"`
	// MetricInterval is how often the exporter sends metrics, a duration
	// such as "30s". Default: otelsetup.DefaultMetricInterval (30s) for
	// otlp; for stdout and stderr, only when the plugin is closed.
	MetricInterval time.Duration `yaml:"metric_interval"`
	// SampleRatio is the fraction of new traces the exporter's provider
	// samples, in [0, 1]; 0 (the default) and 1 sample every trace. A
	// client's sampled or dropped trace context is followed.
	SampleRatio float64 `yaml:"sample_ratio"`
}

// The exporters of [Config.Exporter].
var exporters = []string{"otlp", "stdout", "stderr", "prometheus"}

// ServesMetrics reports whether c's exporter is "prometheus", whose
// metrics a program serves from [Plugin.Metrics]: what the hookflow
// gateway checks, before it builds the plugin, to serve them at its
// serve.metrics path.
func (c Config) ServesMetrics() bool { return c.Exporter == "prometheus" }

// Validate checks c without a server: known flows, a known exporter and
// settings that apply to it, a usable endpoint and headers, a
// non-negative interval, a ratio in [0, 1]. It returns nil or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path ("flows[1]", "headers_env.Authorization").
// Attach calls it.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for i, id := range c.Flows {
		if _, err := flows.Parse(string(id)); err != nil {
			bad(fmt.Sprintf("flows[%d]", i), "%v", err)
		}
	}
	switch {
	case c.Exporter == "" || slices.Contains(exporters, c.Exporter):
	default:
		msg := fmt.Sprintf("unknown exporter %q", c.Exporter)
		if near, ok := suggest.Closest(c.Exporter, exporters); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		} else {
			msg += " (want " + strings.Join(exporters, ", ") + ")"
		}
		bad("exporter", "%s", msg)
	}
	if c.Exporter != "otlp" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"endpoint", c.Endpoint != ""}, {"insecure", c.Insecure}, {"headers_env", len(c.HeadersEnv) > 0}} {
			if f.set {
				bad(f.name, "applies to the otlp exporter only (exporter is %q)", c.Exporter)
			}
		}
	}
	if c.Exporter == "" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"service_name", c.ServiceName != ""}, {"metric_interval", c.MetricInterval != 0}, {"sample_ratio", c.SampleRatio != 0}} {
			if f.set {
				bad(f.name, "applies to an exporter only: set exporter")
			}
		}
	}
	if c.Exporter == "prometheus" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"metric_interval", c.MetricInterval != 0}, {"sample_ratio", c.SampleRatio != 0}} {
			if f.set {
				bad(f.name, "does not apply to the prometheus exporter: a scrape reads the metrics, and it exports no spans")
			}
		}
	}
	if c.Endpoint != "" {
		if strings.Contains(c.Endpoint, "://") {
			bad("endpoint", "%q: write host:port without a scheme (set insecure for plain HTTP)", c.Endpoint)
		} else if _, _, err := net.SplitHostPort(c.Endpoint); err != nil {
			bad("endpoint", "%q is not host:port", c.Endpoint)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(c.HeadersEnv)) {
		at := "headers_env." + h
		switch env := c.HeadersEnv[h]; {
		case h == "" || strings.ContainsFunc(h, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) }):
			bad(at, "%q is not a header name", h)
		case env == "" || strings.ContainsAny(env, "=\x00"):
			bad(at, "%q is not the name of an environment variable", env)
		}
	}
	if c.MetricInterval < 0 {
		bad("metric_interval", "must not be negative, got %v", c.MetricInterval)
	}
	if c.SampleRatio < 0 || c.SampleRatio > 1 || math.IsNaN(c.SampleRatio) {
		bad("sample_ratio", "must be in [0, 1], got %v", c.SampleRatio)
	}
	return errors.Join(errs...)
}

// export builds the providers of c.Exporter for the Go providers c leaves
// nil, reading the headers' environment variables.
func (c Config) export(ctx context.Context) (*otelsetup.Providers, error) {
	switch c.Exporter {
	case "stdout", "stderr":
		w := os.Stdout
		if c.Exporter == "stderr" {
			w = os.Stderr
		}
		return otelsetup.Stdout(w, otelsetup.StdoutConfig{ServiceName: c.ServiceName, Compact: true,
			MetricInterval: c.MetricInterval, SampleRatio: c.SampleRatio})
	case "prometheus":
		return otelsetup.Prometheus(otelsetup.PrometheusConfig{ServiceName: c.ServiceName})
	case "otlp":
		var headers map[string]string
		var errs []error
		for _, h := range slices.Sorted(maps.Keys(c.HeadersEnv)) {
			v, ok := os.LookupEnv(c.HeadersEnv[h])
			if !ok || v == "" {
				errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: "headers_env." + h,
					Msg: fmt.Sprintf("the environment variable %s is not set", c.HeadersEnv[h])})
				continue
			}
			if headers == nil {
				headers = map[string]string{}
			}
			headers[h] = v
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return otelsetup.OTLP(ctx, otelsetup.OTLPConfig{Endpoint: c.Endpoint, Insecure: c.Insecure, Headers: headers,
			ServiceName: c.ServiceName, MetricInterval: c.MetricInterval, SampleRatio: c.SampleRatio})
	}
	return nil, nil
}
