package otelsetup_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
)

func TestPrometheus(t *testing.T) {
	prov, err := otelsetup.Prometheus(otelsetup.PrometheusConfig{ServiceName: "weather"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prov.Shutdown(context.Background()) })
	m := prov.MeterProvider.Meter("test")
	dur, _ := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"))
	blocked, _ := m.Int64Counter("hookflow.run.blocked", metric.WithUnit("{run}"))
	ctx := context.Background()
	tool := metric.WithAttributes(attribute.String("gen_ai.tool.name", "get_weather"))
	for range 3 {
		dur.Record(ctx, 0.01, tool)
	}
	blocked.Add(ctx, 1, metric.WithAttributes(attribute.String("hookflow.hook", "deny")))
	if _, span := prov.TracerProvider.Tracer("test").Start(ctx, "run"); span.IsRecording() {
		t.Error("the tracer records spans that nothing exports")
	}

	rec := httptest.NewRecorder()
	prov.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	tests := []struct {
		family, label, value string
		want                 float64
		histogram            bool
	}{
		{"mcp_server_operation_duration_seconds", "gen_ai_tool_name", "get_weather", 3, true},
		{"hookflow_run_blocked_total", "hookflow_hook", "deny", 1, false},
	}
	for _, tt := range tests {
		f, ok := fams[tt.family]
		if !ok {
			names := make([]string, 0, len(fams))
			for n := range fams {
				names = append(names, n)
			}
			t.Errorf("no family %s in %v", tt.family, names)
			continue
		}
		found := false
		for _, mm := range f.GetMetric() {
			for _, l := range mm.GetLabel() {
				if l.GetName() != tt.label || l.GetValue() != tt.value {
					continue
				}
				found = true
				got := mm.GetCounter().GetValue()
				if tt.histogram {
					got = float64(mm.GetHistogram().GetSampleCount())
				}
				if got != tt.want {
					t.Errorf("%s{%s=%q} = %v, want %v", tt.family, tt.label, tt.value, got, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s has no %s=%q", tt.family, tt.label, tt.value)
		}
	}
}
