// Package otelsetup builds the OpenTelemetry SDK providers that the otel
// plugin reports to: spans and metrics written as JSON to a stream, for
// examples and debugging ([Stdout]), or exported over OTLP/HTTP to a
// collector ([OTLP]).
//
//	prov, err := otelsetup.OTLP(ctx, otelsetup.OTLPConfig{Endpoint: "collector:4318", Insecure: true, ServiceName: "weather"})
//	…
//	defer prov.Shutdown(context.Background())
//	err = srv.Use(otel.New(otel.Config{TracerProvider: prov.TracerProvider, MeterProvider: prov.MeterProvider}))
//
// The plugin itself needs only the OpenTelemetry API; this package is what
// brings in the SDK and the exporters, for programs that want them.
package otelsetup
