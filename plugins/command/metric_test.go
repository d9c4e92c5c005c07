package command_test

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/otel"
)

// A failure the agents' rule lets through is counted by the otel
// plugin's hookflow.hook.failed_open, per hook: the agents' rule turns a
// guard off, never silently.
func TestNonBlockingFailureMetric(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Name: "guard", Command: f.script("guard.sh", bash+"echo 'jq: command not found' >&2\nexit 127\n")}))
	f.trust(cfg)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{
		otel.New(otel.Config{MeterProvider: mp, TracerProvider: tp}), command.New(cfg)}})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := h.Call(plugintest.ToolEcho, echoHi); r.IsError() {
			t.Fatalf("the call was blocked: %s", r.Text())
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != "hookflow.hook.failed_open" || !ok {
				continue
			}
			for _, p := range sum.DataPoints {
				if id, _ := p.Attributes.Value(attribute.Key("hookflow.hook.id")); strings.HasSuffix(id.AsString(), "/tools:call-tool/beforeExecute/guard") {
					got += p.Value
				}
			}
		}
	}
	if got != 2 {
		t.Errorf("hookflow.hook.failed_open counted %d failures of the guard, want 2", got)
	}
}
