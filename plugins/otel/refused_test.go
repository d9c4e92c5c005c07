package otel_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/stages"
)

// served is a traced server with the echo tool and the greet prompt, whose
// prompts:get-prompt hook refuses the name "block" (a protocol error the
// run itself ends in).
type served struct {
	srv     *framework.Server
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
}

func newServed(t *testing.T) *served {
	t.Helper()
	s := &served{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(s.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.metrics))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	s.srv = framework.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	err := errors.Join(
		s.srv.Use(otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp})),
		framework.AddToolFunc(s.srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (out, error) {
			return out(x), nil
		}),
		framework.AddPromptFunc(s.srv, &mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi " + req.Params.Arguments["who"]}}}}, nil
			}),
		s.srv.Hook(flows.Hook{Flow: flows.PromptsGetPrompt, Stage: stages.BeforeExecute, Name: "refuse", Fn: func(c *flows.Context) error {
			if p, _ := c.Input().(*mcp.GetPromptParams); p != nil && p.Arguments["who"] == "block" {
				return errors.New("refused by policy")
			}
			return nil
		}}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inMemory connects a client to s over in-memory transports.
func (s *served) inMemory(t *testing.T) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// overHTTP serves s with its HTTP handler and connects a client to it.
func (s *served) overHTTP(t *testing.T) (*mcp.ClientSession, string) {
	t.Helper()
	h, err := s.srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, hs.URL
}

// servers returns the SERVER spans named name.
func (s *served) servers(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, sp := range s.spans.GetSpans() {
		if sp.Name == name && sp.SpanKind == trace.SpanKindServer {
			out = append(out, sp)
		}
	}
	return out
}

// durations returns the attribute sets of the mcp.server.operation.duration
// data points of method, each repeated by its count.
func (s *served) durations(t *testing.T, method string) []attribute.Set {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := s.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []attribute.Set
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != "mcp.server.operation.duration" || !ok {
				continue
			}
			for _, p := range h.DataPoints {
				if v, _ := p.Attributes.Value("mcp.method.name"); v.AsString() == method {
					for range p.Count {
						out = append(out, p.Attributes)
					}
				}
			}
		}
	}
	return out
}

func value(set attribute.Set, key attribute.Key) string {
	v, _ := set.Value(key)
	return v.Emit()
}

// TestRefusedBeforeAFlow: a request the server answers with a protocol
// error before any flow runs (the SDK finds no such tool, prompt or
// resource) gets a SERVER span with the JSON-RPC code as error.type and
// rpc.response.status_code, status Error, and one duration record with the
// same error.type.
func TestRefusedBeforeAFlow(t *testing.T) {
	s := newServed(t)
	cs := s.inMemory(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, span, method, code string
		call                     func() error
		attrs                    map[string]string
	}{
		{"unknown tool", "tools/call nope", "tools/call", "-32602", func() error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			return err
		}, map[string]string{"gen_ai.tool.name": "nope", "gen_ai.operation.name": "execute_tool"}},
		{"unknown prompt", "prompts/get nope", "prompts/get", "-32602", func() error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"})
			return err
		}, map[string]string{"gen_ai.prompt.name": "nope"}},
		{"unknown resource", "resources/read", "resources/read", strconv.FormatInt(mcp.CodeResourceNotFound, 10), func() error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///nope"})
			return err
		}, map[string]string{"mcp.resource.uri": "file:///nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wire *jsonrpc.Error
			if err := tc.call(); !errors.As(err, &wire) || strconv.FormatInt(wire.Code, 10) != tc.code {
				t.Fatalf("call: %v, want a protocol error %s", err, tc.code)
			}
			spans := s.servers(tc.span)
			if len(spans) != 1 {
				t.Fatalf("%d server spans %q, want 1", len(spans), tc.span)
			}
			sp := spans[0]
			want := map[string]string{"mcp.method.name": tc.method, "error.type": tc.code, "rpc.response.status_code": tc.code,
				"hookflow.outcome": "refused", "network.transport": "pipe"}
			for k, v := range tc.attrs {
				want[k] = v
			}
			for key, v := range want {
				if got := attr(sp.Attributes, key); got != v {
					t.Errorf("span %s = %q, want %q", key, got, v)
				}
			}
			if sp.Status.Code != codes.Error {
				t.Errorf("span status %+v, want Error", sp.Status)
			}
			points := s.durations(t, tc.method)
			if len(points) != 1 {
				t.Fatalf("%d duration records for %s, want 1", len(points), tc.method)
			}
			for _, key := range []attribute.Key{"error.type", "rpc.response.status_code"} {
				if got := value(points[0], key); got != tc.code {
					t.Errorf("duration record %s = %q, want %q", key, got, tc.code)
				}
			}
			if got := value(points[0], "network.transport"); got != "pipe" {
				t.Errorf("duration record network.transport = %q, want pipe", got)
			}
		})
	}
}

// TestRunNotCountedTwice: a request whose flow ran gets the run's span and
// record only, whether it succeeds or its run ends in a protocol error.
func TestRunNotCountedTwice(t *testing.T) {
	s := newServed(t)
	cs := s.inMemory(t)
	ctx := context.Background()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "block"}}); err == nil {
		t.Fatal("get of a refused prompt: no error")
	}
	for _, tc := range []struct{ span, method, outcome string }{
		{"tools/call echo", "tools/call", "ok"},
		{"prompts/get greet", "prompts/get", "blocked"},
	} {
		spans := s.servers(tc.span)
		if len(spans) != 1 {
			t.Errorf("%d server spans %q, want 1", len(spans), tc.span)
		} else if got := attr(spans[0].Attributes, "hookflow.outcome"); got != tc.outcome {
			t.Errorf("span %q outcome %q, want %q", tc.span, got, tc.outcome)
		}
		points := s.durations(t, tc.method)
		if len(points) != 1 {
			t.Errorf("%d duration records for %s, want 1", len(points), tc.method)
		} else if got := value(points[0], "hookflow.outcome"); got != tc.outcome {
			t.Errorf("duration record of %s: outcome %q, want %q", tc.method, got, tc.outcome)
		}
	}
}

// TestNetworkTransport: network.transport (and network.protocol.name over
// HTTP) names the transport a request came over, on run spans, refusal
// spans and duration records alike.
func TestNetworkTransport(t *testing.T) {
	for _, tc := range []struct {
		name, transport, protocol string
		connect                   func(*served, *testing.T) *mcp.ClientSession
	}{
		{"in memory", "pipe", "", (*served).inMemory},
		{"http", "tcp", "http", func(s *served, t *testing.T) *mcp.ClientSession {
			cs, _ := s.overHTTP(t)
			return cs
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServed(t)
			cs := tc.connect(s, t)
			ctx := context.Background()
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
				t.Fatal("unknown tool: no error")
			}
			for _, name := range []string{"tools/call echo", "tools/call nope"} {
				spans := s.servers(name)
				if len(spans) != 1 {
					t.Fatalf("%d server spans %q, want 1", len(spans), name)
				}
				if got := attr(spans[0].Attributes, "network.transport"); got != tc.transport {
					t.Errorf("span %q network.transport = %q, want %q", name, got, tc.transport)
				}
				if got := attr(spans[0].Attributes, "network.protocol.name"); got != tc.protocol {
					t.Errorf("span %q network.protocol.name = %q, want %q", name, got, tc.protocol)
				}
				// Over HTTP (hookflow's transport) the span knows the
				// request's ID and its client.
				if tc.protocol == "http" && (attr(spans[0].Attributes, "jsonrpc.request.id") == "" || attr(spans[0].Attributes, "client.address") != "127.0.0.1") {
					t.Errorf("span %q jsonrpc.request.id = %q, client.address = %q, want an ID and 127.0.0.1", name,
						attr(spans[0].Attributes, "jsonrpc.request.id"), attr(spans[0].Attributes, "client.address"))
				}
			}
			points := s.durations(t, "tools/call")
			if len(points) != 2 {
				t.Fatalf("%d duration records for tools/call, want 2", len(points))
			}
			for _, p := range points {
				if got := value(p, "network.transport"); got != tc.transport {
					t.Errorf("duration record network.transport = %q, want %q", got, tc.transport)
				}
				if got := value(p, "jsonrpc.request.id"); got != "" {
					t.Errorf("duration record jsonrpc.request.id = %q, want none", got)
				}
			}
		})
	}
}

// TestHTTPRefusalsAreNotSpans: a request the HTTP layer refuses (here a
// method MCP does not define, answered 400 with -32601) never reaches the
// session and gets no span.
func TestHTTPRefusalsAreNotSpans(t *testing.T) {
	s := newServed(t)
	_, url := s.overHTTP(t)
	body := `{"jsonrpc":"2.0","id":7,"method":"nope/nope","params":{}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(buf.String(), "-32601") {
		t.Fatalf("status %d body %s, want 400 with -32601", resp.StatusCode, buf.String())
	}
	for _, sp := range s.spans.GetSpans() {
		if attr(sp.Attributes, "mcp.method.name") == "nope/nope" || attr(sp.Attributes, "error.type") == "-32601" {
			t.Errorf("span %q (%v) for a request the HTTP layer refused", sp.Name, sp.Attributes)
		}
	}
}

// TestRequestsWithoutParams: a request sent without params, as the spec
// allows for lists and ping, is served and traced; the plugin must not
// read the _meta of params that are not there.
func TestRequestsWithoutParams(t *testing.T) {
	s := newServed(t)
	_, url := s.overHTTP(t)
	post := func(t *testing.T, body, session string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		_ = resp.Body.Close()
		return resp, buf.String()
	}
	resp, body := post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, "")
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	for i, method := range []string{"tools/list", "prompts/list", "ping"} {
		t.Run(method, func(t *testing.T) {
			resp, body := post(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(10+i)+`,"method":"`+method+`"}`, session)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
				t.Fatalf("%s without params: %d %s, want a result", method, resp.StatusCode, body)
			}
			if spans := s.servers(method); len(spans) != 1 || spans[0].Status.Code == codes.Error {
				t.Errorf("%d server spans %q (%v), want 1 without error", len(spans), method, spans)
			}
		})
	}
}
