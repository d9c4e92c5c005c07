package gateway_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/otel"
)

// metaRecorder serves, over streamable HTTP, an upstream with one tool
// whose calls' _meta it records.
type metaRecorder struct {
	mu    sync.Mutex
	metas []mcp.Meta
}

func (r *metaRecorder) upstream(t *testing.T) gateway.Upstream {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "recorder", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "record", Description: "records its _meta", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.mu.Lock()
			r.metas = append(r.metas, req.Params.Meta)
			r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "recorded"}}}, nil
		})
	url := httptestServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	return gateway.Upstream{Name: "recorder", URL: url}
}

func (r *metaRecorder) last(t *testing.T) mcp.Meta {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.metas) == 0 {
		t.Fatal("the upstream saw no call")
	}
	return r.metas[len(r.metas)-1]
}

// TestTraceContextReachesUpstream: the W3C trace context a client sends in
// _meta continues upstream. With the otel plugin, the upstream's parent is
// the gateway's span of the run (same trace, the gateway's span ID);
// without a span in the run's context, the client's trace context passes
// through unchanged.
func TestTraceContextReachesUpstream(t *testing.T) {
	const traceID, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	clientParent := "00-" + traceID + "-" + clientSpan + "-01"
	callTraced := func(t *testing.T, cs *mcp.ClientSession) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "record", Arguments: map[string]any{},
			Meta: mcp.Meta{"traceparent": clientParent, "tracestate": "client=1"}})
		if err != nil || res.IsError {
			t.Fatalf("record: %v %+v", err, res)
		}
	}

	t.Run("with the otel plugin", func(t *testing.T) {
		var rec metaRecorder
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		srv, _ := serve(t, func(s *framework.Server) {
			if err := s.Use(otel.New(otel.Config{TracerProvider: tp})); err != nil {
				t.Fatal(err)
			}
		}, rec.upstream(t))
		callTraced(t, connect(t, srv, nil))

		var run *tracetest.SpanStub
		for _, s := range spans.GetSpans() {
			if s.SpanKind == trace.SpanKindServer && s.Name == "tools/call record" {
				run = &s
			}
		}
		if run == nil {
			t.Fatalf("no server span for the call among %d spans", len(spans.GetSpans()))
		}
		if got := run.SpanContext.TraceID().String(); got != traceID {
			t.Fatalf("the run's trace %s, want the client's %s", got, traceID)
		}
		want := "00-" + traceID + "-" + run.SpanContext.SpanID().String() + "-01"
		meta := rec.last(t)
		if got := meta["traceparent"]; got != want {
			t.Errorf("upstream traceparent %v, want %s: the gateway's run span as parent", got, want)
		}
		// W3C tracestate travels along the trace: the run's span inherits
		// the client's, and the upstream receives the span's.
		if got, want := meta["tracestate"], run.SpanContext.TraceState().String(); got != want || want != "client=1" {
			t.Errorf("upstream tracestate %v, want the run span's %q (the client's client=1)", got, want)
		}
	})

	t.Run("without a span", func(t *testing.T) {
		var rec metaRecorder
		srv, _ := serve(t, nil, rec.upstream(t))
		callTraced(t, connect(t, srv, nil))
		meta := rec.last(t)
		if got := meta["traceparent"]; got != clientParent || meta["tracestate"] != "client=1" {
			t.Errorf("upstream trace context %v / %v, want the client's %s / client=1", got, meta["tracestate"], clientParent)
		}
	})
}
