package otel_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/otel"
)

// TestPrometheusExporter: a configuration that names the prometheus
// exporter serves, from Plugin.Metrics, a text the Prometheus parser
// reads, holding the per-tool call histogram with a sample per call.
func TestPrometheusExporter(t *testing.T) {
	p := otel.New(otel.Config{Flows: []flows.ID{flows.ToolsCallTool}, Exporter: "prometheus"})
	if p.Metrics() != nil {
		t.Fatal("Metrics before Attach is not nil")
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "scraped", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, v in) (out, error) {
		return out(v), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Use(p); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() { _ = p.Close(ctx) })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
			t.Fatal(err)
		}
	}

	rec := httptest.NewRecorder()
	p.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	f, ok := fams["mcp_server_operation_duration_seconds"]
	if !ok {
		t.Fatalf("no mcp_server_operation_duration_seconds among %d families", len(fams))
	}
	var calls uint64
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "gen_ai_tool_name" && l.GetValue() == "echo" {
				calls += m.GetHistogram().GetSampleCount()
			}
		}
	}
	if calls != 2 {
		t.Errorf("echo's histogram counts %d calls, want 2; families: %v", calls, f)
	}
}
