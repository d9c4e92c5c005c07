package otelsetup

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// DefaultMetricInterval is how often metrics are exported when a config
// sets no interval.
const DefaultMetricInterval = 30 * time.Second

// Providers are a tracer provider and a meter provider that export to the
// same place.
type Providers struct {
	TracerProvider *sdktrace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
	// Metrics serves the meter provider's metrics in the Prometheus text
	// format, for [Prometheus]'s providers; nil for the others.
	Metrics http.Handler
}

// Shutdown exports what is pending and stops both providers; ctx bounds
// how long that may take.
func (p *Providers) Shutdown(ctx context.Context) error {
	return errors.Join(p.TracerProvider.Shutdown(ctx), p.MeterProvider.Shutdown(ctx))
}

// StdoutConfig configures [Stdout].
type StdoutConfig struct {
	// ServiceName names the service in the resource (service.name);
	// "hookflow" when empty.
	ServiceName string
	// Compact writes one JSON object per line instead of indented JSON.
	Compact bool
	// MetricInterval is how often metrics are written; 0 writes them only
	// at Shutdown.
	MetricInterval time.Duration
	// SampleRatio is the fraction of new traces sampled, in [0, 1]; 0
	// (unset) and 1 leave the SDK's sampler (every trace, unless
	// OTEL_TRACES_SAMPLER says otherwise). A span whose parent was
	// sampled or dropped follows its parent.
	SampleRatio float64
}

// Stdout returns providers that write every ended span, and the metrics,
// as JSON to w. Spans are written synchronously, as they end, which suits
// examples and debugging, not production.
func Stdout(w io.Writer, cfg StdoutConfig) (*Providers, error) {
	topts := []stdouttrace.Option{stdouttrace.WithWriter(w)}
	mopts := []stdoutmetric.Option{stdoutmetric.WithWriter(w)}
	if !cfg.Compact {
		topts = append(topts, stdouttrace.WithPrettyPrint())
		mopts = append(mopts, stdoutmetric.WithPrettyPrint())
	}
	te, err := stdouttrace.New(topts...)
	if err != nil {
		return nil, err
	}
	me, err := stdoutmetric.New(mopts...)
	if err != nil {
		return nil, err
	}
	interval := cfg.MetricInterval
	if interval == 0 {
		interval = 24 * time.Hour // in effect: at Shutdown only
	}
	res := newResource(cfg.ServiceName)
	return &Providers{
		TracerProvider: sdktrace.NewTracerProvider(append(sampler(cfg.SampleRatio), sdktrace.WithSyncer(te), sdktrace.WithResource(res))...),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(interval))), sdkmetric.WithResource(res)),
	}, nil
}

// OTLPConfig configures [OTLP]. Fields left empty fall back to the
// exporters' standard environment variables (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_HEADERS, …) and then to their defaults
// (localhost:4318, HTTPS).
type OTLPConfig struct {
	// Endpoint is the collector's host and port, e.g. "collector:4318".
	Endpoint string
	// Headers are sent with every export, e.g. an authorization header.
	Headers map[string]string
	// Insecure exports over plain HTTP instead of HTTPS.
	Insecure bool
	// ServiceName names the service in the resource (service.name);
	// "hookflow" when empty.
	ServiceName string
	// MetricInterval is how often metrics are exported;
	// DefaultMetricInterval when 0.
	MetricInterval time.Duration
	// SampleRatio is the fraction of new traces sampled, in [0, 1]; 0
	// (unset) and 1 leave the SDK's sampler (every trace, unless
	// OTEL_TRACES_SAMPLER says otherwise). A span whose parent was
	// sampled or dropped follows its parent.
	SampleRatio float64
}

// OTLP returns providers that export spans (in batches) and metrics (every
// MetricInterval) over OTLP/HTTP. ctx bounds the exporters' creation only.
func OTLP(ctx context.Context, cfg OTLPConfig) (*Providers, error) {
	var topts []otlptracehttp.Option
	var mopts []otlpmetrichttp.Option
	if cfg.Endpoint != "" {
		topts = append(topts, otlptracehttp.WithEndpoint(cfg.Endpoint))
		mopts = append(mopts, otlpmetrichttp.WithEndpoint(cfg.Endpoint))
	}
	if len(cfg.Headers) > 0 {
		topts = append(topts, otlptracehttp.WithHeaders(cfg.Headers))
		mopts = append(mopts, otlpmetrichttp.WithHeaders(cfg.Headers))
	}
	if cfg.Insecure {
		topts = append(topts, otlptracehttp.WithInsecure())
		mopts = append(mopts, otlpmetrichttp.WithInsecure())
	}
	te, err := otlptracehttp.New(ctx, topts...)
	if err != nil {
		return nil, err
	}
	me, err := otlpmetrichttp.New(ctx, mopts...)
	if err != nil {
		return nil, errors.Join(err, te.Shutdown(ctx))
	}
	res := newResource(cfg.ServiceName)
	return &Providers{
		TracerProvider: sdktrace.NewTracerProvider(append(sampler(cfg.SampleRatio), sdktrace.WithBatcher(te), sdktrace.WithResource(res))...),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(
			sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(cmp.Or(cfg.MetricInterval, DefaultMetricInterval))))),
	}, nil
}

// sampler is the option that samples ratio of new traces and follows a
// span's parent; none when every trace is sampled, which leaves the SDK's
// default (and its OTEL_TRACES_SAMPLER variable) in place.
func sampler(ratio float64) []sdktrace.TracerProviderOption {
	if ratio <= 0 || ratio >= 1 {
		return nil
	}
	return []sdktrace.TracerProviderOption{sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)))}
}

// newResource describes the service; the SDK's defaults (SDK name and
// version, OTEL_RESOURCE_ATTRIBUTES) are merged in.
func newResource(service string) *resource.Resource {
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(cmp.Or(service, "hookflow"))))
	if err != nil {
		// The schemas of the two differ: keep the service name.
		return resource.NewSchemaless(semconv.ServiceName(cmp.Or(service, "hookflow")))
	}
	return res
}

// PrometheusConfig configures [Prometheus].
type PrometheusConfig struct {
	// ServiceName names the service in the resource (service.name);
	// "hookflow" when empty.
	ServiceName string
}

// Prometheus returns providers whose metrics are read when scraped: the
// Providers' Metrics handler serves them in the Prometheus text format,
// from a registry of their own. Its tracer provider exports no spans.
func Prometheus(cfg PrometheusConfig) (*Providers, error) {
	reg := prometheus.NewRegistry()
	me, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	res := newResource(cfg.ServiceName)
	return &Providers{
		// Spans not sampled cost a run no more than the noop tracer's.
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.NeverSample())),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(me)),
		Metrics:        promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
	}, nil
}
