package otel_test

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/otel"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  otel.Config
		want []plugintest.FieldErr
	}{
		{"zero", otel.Config{}, nil},
		{"otlp", otel.Config{Flows: []flows.ID{flows.ToolsCallTool}, Exporter: "otlp", Endpoint: "collector:4318", Insecure: true,
			HeadersEnv: map[string]string{"Authorization": "COLLECTOR_AUTH"}, ServiceName: "gateway",
			MetricInterval: 10 * time.Second, SampleRatio: 0.25}, nil},
		{"stderr", otel.Config{Exporter: "stderr", ServiceName: "gateway", SampleRatio: 1}, nil},
		{"prometheus", otel.Config{Exporter: "prometheus", ServiceName: "gateway"}, nil},
		{"prometheus pushes nothing", otel.Config{Exporter: "prometheus", MetricInterval: time.Second, SampleRatio: 0.5},
			[]plugintest.FieldErr{
				{"metric_interval", "does not apply to the prometheus exporter: a scrape reads the metrics, and it exports no spans"},
				{"sample_ratio", "does not apply to the prometheus exporter: a scrape reads the metrics, and it exports no spans"},
			}},
		{"unknown flow", otel.Config{Flows: []flows.ID{flows.ToolsCallTool, "tools:cal-tool"}},
			[]plugintest.FieldErr{{"flows[1]", `unknown flow "tools:cal-tool" (did you mean "tools:call-tool"?)`}}},
		{"exporter typo", otel.Config{Exporter: "otpl"},
			[]plugintest.FieldErr{{"exporter", `unknown exporter "otpl" (did you mean "otlp"?)`}}},
		{"unknown exporter", otel.Config{Exporter: "zipkin"},
			[]plugintest.FieldErr{{"exporter", `unknown exporter "zipkin" (want otlp, stdout, stderr, prometheus)`}}},
		{"otlp settings without otlp", otel.Config{Exporter: "stdout", Endpoint: "c:4318", Insecure: true, HeadersEnv: map[string]string{"A": "B"}},
			[]plugintest.FieldErr{
				{"endpoint", `applies to the otlp exporter only (exporter is "stdout")`},
				{"insecure", `applies to the otlp exporter only (exporter is "stdout")`},
				{"headers_env", `applies to the otlp exporter only (exporter is "stdout")`},
			}},
		{"exporter settings without an exporter", otel.Config{ServiceName: "x", MetricInterval: time.Second, SampleRatio: 0.5},
			[]plugintest.FieldErr{
				{"service_name", "applies to an exporter only: set exporter"},
				{"metric_interval", "applies to an exporter only: set exporter"},
				{"sample_ratio", "applies to an exporter only: set exporter"},
			}},
		{"endpoint with a scheme", otel.Config{Exporter: "otlp", Endpoint: "http://collector:4318"},
			[]plugintest.FieldErr{{"endpoint", `"http://collector:4318": write host:port without a scheme (set insecure for plain HTTP)`}}},
		{"endpoint without a port", otel.Config{Exporter: "otlp", Endpoint: "collector"},
			[]plugintest.FieldErr{{"endpoint", `"collector" is not host:port`}}},
		{"bad headers", otel.Config{Exporter: "otlp", HeadersEnv: map[string]string{"X Auth": "A", "Authorization": "", "X-Key": "K=V"}},
			[]plugintest.FieldErr{
				{"headers_env.Authorization", `"" is not the name of an environment variable`},
				{"headers_env.X Auth", `"X Auth" is not a header name`},
				{"headers_env.X-Key", `"K=V" is not the name of an environment variable`},
			}},
		{"negative interval", otel.Config{Exporter: "otlp", MetricInterval: -time.Second},
			[]plugintest.FieldErr{{"metric_interval", "must not be negative, got -1s"}}},
		{"ratio above one", otel.Config{Exporter: "otlp", SampleRatio: 1.5},
			[]plugintest.FieldErr{{"sample_ratio", "must be in [0, 1], got 1.5"}}},
		{"ratio NaN", otel.Config{Exporter: "otlp", SampleRatio: math.NaN()},
			[]plugintest.FieldErr{{"sample_ratio", "must be in [0, 1], got NaN"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tt.cfg.Validate())
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestOTLPExporter: a configuration that names the otlp exporter gets its
// spans to the collector, with the header whose value it names by
// environment variable, and Close flushes them.
func TestOTLPExporter(t *testing.T) {
	var mu sync.Mutex
	var spans, auth []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
		if r.URL.Path == "/v1/traces" {
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				t.Errorf("traces body: %v", err)
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						spans = append(spans, sp.Name)
					}
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("TEST_COLLECTOR_AUTH", "Bearer collector-token")

	p := otel.New(otel.Config{Flows: []flows.ID{flows.ToolsCallTool}, Exporter: "otlp", Insecure: true,
		Endpoint: strings.TrimPrefix(collector.URL, "http://"), HeadersEnv: map[string]string{"Authorization": "TEST_COLLECTOR_AUTH"}})
	srv := framework.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
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
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(spans, "|"), "tools/call echo") {
		t.Errorf("the collector got spans %q, want the tool call's", spans)
	}
	for _, a := range auth {
		if a != "Bearer collector-token" {
			t.Errorf("an export without the header from TEST_COLLECTOR_AUTH: %q", a)
		}
	}
}

// TestExporterHeaderUnset: a header whose environment variable is unset
// fails Start, naming the setting; no secret is ever taken from the file.
func TestExporterHeaderUnset(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	p := otel.New(otel.Config{Exporter: "otlp", HeadersEnv: map[string]string{"Authorization": "TEST_OTEL_UNSET_VARIABLE"}})
	if err := srv.Use(p); err != nil {
		t.Fatal(err)
	}
	err := srv.Start()
	if err == nil || !strings.Contains(err.Error(), "headers_env.Authorization: the environment variable TEST_OTEL_UNSET_VARIABLE is not set") {
		t.Errorf("Start = %v", err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Errorf("Close of a plugin that built nothing: %v", err)
	}
}
