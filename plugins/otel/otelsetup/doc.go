// Package otelsetup builds the OpenTelemetry SDK providers that the otel
// plugin reports to: spans and metrics written as JSON to a stream, for
// examples and debugging ([Stdout]), exported over OTLP/HTTP to a
// collector ([OTLP]), or read when Prometheus scrapes them ([Prometheus],
// whose Providers.Metrics handler serves them; its exporter is
// OpenTelemetry's own, so a scrape shows the plugin's instruments under
// their semantic-convention names, dots turned to underscores and the
// unit appended: mcp_server_operation_duration_seconds).
//
//	prov, err := otelsetup.OTLP(ctx, otelsetup.OTLPConfig{Endpoint: "collector:4318", Insecure: true, ServiceName: "weather"})
//	…
//	defer prov.Shutdown(context.Background())
//	err = srv.Use(otel.New(otel.Config{TracerProvider: prov.TracerProvider, MeterProvider: prov.MeterProvider}))
//
// The plugin itself needs only the OpenTelemetry API; this package is what
// brings in the SDK and the exporters, for programs that want them.
package otelsetup
