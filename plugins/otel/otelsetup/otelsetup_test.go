package otelsetup_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
)

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	prov, err := otelsetup.Stdout(&buf, otelsetup.StdoutConfig{Compact: true, ServiceName: "weather"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := prov.TracerProvider.Tracer("test").Start(context.Background(), "tools/call get_weather")
	span.End()
	counter, _ := prov.MeterProvider.Meter("test").Int64Counter("calls")
	counter.Add(context.Background(), 3)
	if err := prov.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var sp struct {
		Name     string
		Resource []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &sp); err != nil {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
	if sp.Name != "tools/call get_weather" {
		t.Errorf("span name %q", sp.Name)
	}
	found := false
	for _, kv := range sp.Resource {
		found = found || kv.Key == "service.name" && kv.Value.Value == "weather"
	}
	if !found {
		t.Errorf("resource %+v lacks service.name=weather", sp.Resource)
	}
	if !strings.Contains(buf.String(), `"Name":"calls"`) {
		t.Errorf("metrics not written at Shutdown: %s", buf.String())
	}
}

func TestOTLP(t *testing.T) {
	var mu sync.Mutex
	var names []string
	var auth []string
	paths := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		paths[r.URL.Path]++
		auth = append(auth, r.Header.Get("Authorization"))
		if r.URL.Path == "/v1/traces" {
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				t.Errorf("traces body: %v", err)
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						names = append(names, sp.Name)
					}
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	ctx := context.Background()
	prov, err := otelsetup.OTLP(ctx, otelsetup.OTLPConfig{
		Endpoint: strings.TrimPrefix(collector.URL, "http://"), Insecure: true,
		Headers: map[string]string{"Authorization": "Bearer collector-token"},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, span := prov.TracerProvider.Tracer("test").Start(ctx, "tools/call echo")
	span.End()
	counter, _ := prov.MeterProvider.Meter("test").Int64Counter("calls")
	counter.Add(ctx, 1)
	if err := prov.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(names) != 1 || names[0] != "tools/call echo" {
		t.Errorf("collector got spans %q", names)
	}
	if paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("collector got %v, want traces and metrics", paths)
	}
	for _, a := range auth {
		if a != "Bearer collector-token" {
			t.Errorf("export without the configured header: %q", a)
		}
	}
}

// TestSampleRatio: a ratio samples that fraction of new traces (at one in
// a trillion, none of a handful) and follows a client's sampled parent.
func TestSampleRatio(t *testing.T) {
	var buf bytes.Buffer
	prov, err := otelsetup.Stdout(&buf, otelsetup.StdoutConfig{Compact: true, SampleRatio: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	defer prov.Shutdown(context.Background())
	tracer := prov.TracerProvider.Tracer("test")
	for range 8 {
		_, span := tracer.Start(context.Background(), "root")
		if span.SpanContext().IsSampled() {
			t.Error("a new trace was sampled at a ratio of 1e-12")
		}
		span.End()
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1},
		TraceFlags: trace.FlagsSampled, Remote: true})
	_, span := tracer.Start(trace.ContextWithRemoteSpanContext(context.Background(), parent), "child")
	if !span.SpanContext().IsSampled() {
		t.Error("a span of a sampled parent was dropped")
	}
	span.End()
}
