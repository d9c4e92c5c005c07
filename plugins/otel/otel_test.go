package otel_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

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

type in struct {
	Text string `json:"text"`
}

type out struct {
	Text string `json:"text"`
}

// setup is a server with the otel plugin, a tool that reports the span its
// context carries, and a plugin whose hooks block, fail open or pass.
type setup struct {
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
	cs      *mcp.ClientSession
	// seen is the span context the tool's execute step saw last.
	seen chan trace.SpanContext
}

func newSetup(t *testing.T, cfg otel.Config) *setup {
	t.Helper()
	s := &setup{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader(), seen: make(chan trace.SpanContext, 1)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(s.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.metrics))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	cfg.TracerProvider, cfg.MeterProvider = tp, mp

	srv := framework.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	policy := framework.NewPlugin("policy", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "block", Fn: func(c *flows.Context) error {
				switch flows.As[flows.ToolCall[in, out]](c).Input().Text {
				case "block":
					return errors.New("blocked by policy")
				case "limit":
					// A budget's refusal, as the ratelimit plugin makes one.
					return &flows.Error{Code: flows.CodeLimited, Flow: c.Flow(), Stage: c.Stage(), Err: errors.New("over budget; retry after 1s")}
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "flaky", OnFailure: flows.FailOpen, Fn: func(c *flows.Context) error {
				return errors.New("flaky check failed")
			}},
		)
	})
	err := errors.Join(
		srv.Use(otel.New(cfg), policy),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(ctx context.Context, _ *mcp.CallToolRequest, x in) (out, error) {
			select {
			case s.seen <- trace.SpanContextFromContext(ctx):
			default:
			}
			return out(x), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	s.cs, err = mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.cs.Close() })
	return s
}

// run returns the ended spans of the one run whose root has the given
// name, root first then children in start order.
func (s *setup) run(t *testing.T, name string) (root tracetest.SpanStub, children []tracetest.SpanStub) {
	t.Helper()
	all := s.spans.GetSpans()
	found := false
	for _, sp := range all {
		if sp.Name == name && sp.SpanKind == trace.SpanKindServer {
			root, found = sp, true
		}
	}
	if !found {
		var names []string
		for _, sp := range all {
			names = append(names, sp.Name)
		}
		t.Fatalf("no server span %q among %q", name, names)
	}
	for _, sp := range all {
		if sp.Parent.SpanID() == root.SpanContext.SpanID() {
			children = append(children, sp)
		}
	}
	slices.SortStableFunc(children, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	return root, children
}

func attr(attrs []attribute.KeyValue, key string) string {
	for _, a := range attrs {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}

func TestToolCallSpans(t *testing.T) {
	s := newSetup(t, otel.Config{})
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	root, children := s.run(t, "tools/call echo")
	if got := root.SpanContext.TraceID().String(); got != traceID {
		t.Errorf("trace ID %s, want the client's %s from params._meta", got, traceID)
	}
	if got := root.Parent.SpanID().String(); got != parentID || !root.Parent.IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span %s", got, root.Parent.IsRemote(), parentID)
	}
	for key, want := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"hookflow.flow": "tools:call-tool", "hookflow.outcome": "ok",
	} {
		if got := attr(root.Attributes, key); got != want {
			t.Errorf("run span %s = %q, want %q", key, got, want)
		}
	}
	if attr(root.Attributes, "hookflow.request.id") == "" || attr(root.Attributes, "mcp.protocol.version") == "" {
		t.Errorf("run span lacks the request ID or protocol version: %v", root.Attributes)
	}
	// The execute step ran inside the run's span.
	if sc := <-s.seen; sc.SpanID() != root.SpanContext.SpanID() {
		t.Errorf("execute saw span %s, want the run span %s", sc.SpanID(), root.SpanContext.SpanID())
	}
	var names []string
	for i, ch := range children {
		names = append(names, ch.Name)
		if i > 0 && ch.StartTime.Before(children[i-1].EndTime) {
			t.Errorf("span %q starts before %q ends: hooks run one after another", ch.Name, children[i-1].Name)
		}
	}
	want := []string{"validate", "beforeExecute traced/plugin:policy/tools:call-tool/beforeExecute/block", "execute",
		"afterExecute traced/plugin:policy/tools:call-tool/afterExecute/flaky", "output"}
	if !slices.Equal(names, want) {
		t.Errorf("child spans %q, want %q", names, want)
	}
	flaky := children[3]
	if attr(flaky.Attributes, "hookflow.outcome") != "failed-open" || attr(flaky.Attributes, "hookflow.hook.owner") != "traced/plugin:policy" {
		t.Errorf("flaky span attributes %v", flaky.Attributes)
	}
	if len(root.Events) != 1 || root.Events[0].Name != "hook failed open" {
		t.Errorf("run span events %v, want one 'hook failed open'", root.Events)
	}
}

func TestBlockedCall(t *testing.T) {
	s := newSetup(t, otel.Config{})
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "block"}})
	if err != nil || !res.IsError {
		t.Fatalf("call: %v %v, want an isError result", err, res)
	}
	root, children := s.run(t, "tools/call echo")
	if root.Status.Code != codes.Error || root.Status.Description != "blocked by policy" {
		t.Errorf("status %+v, want Error with the reason", root.Status)
	}
	for key, want := range map[string]string{
		"hookflow.outcome": "blocked", "hookflow.decided_by": "traced/plugin:policy/tools:call-tool/beforeExecute/block",
		"error.type": "tool_error", "hookflow.error.code": "aborted",
	} {
		if got := attr(root.Attributes, key); got != want {
			t.Errorf("run span %s = %q, want %q", key, got, want)
		}
	}
	var block tracetest.SpanStub
	for _, ch := range children {
		if strings.HasSuffix(ch.Name, "/block") {
			block = ch
		}
	}
	if block.Status.Code != codes.Error || attr(block.Attributes, "hookflow.outcome") != "abort" {
		t.Errorf("block hook span: status %+v, attributes %v", block.Status, block.Attributes)
	}
	counts := s.collect(t)
	if got := counts["hookflow.run.blocked"]; got != 1 {
		t.Errorf("hookflow.run.blocked = %d, want 1", got)
	}
	if got := counts["mcp.server.operation.duration"]; got < 2 {
		t.Errorf("mcp.server.operation.duration has %d records, want the call and the initialize", got)
	}
	if got := counts["hookflow.ratelimit.rejections"]; got != 0 {
		t.Errorf("hookflow.ratelimit.rejections = %d, want 0: a hook's refusal is not a budget's", got)
	}
}

// A budget's refusal (flows.CodeLimited, whoever makes it) is a blocked run
// counted in hookflow.ratelimit.rejections, told apart by its code.
func TestLimitedCall(t *testing.T) {
	s := newSetup(t, otel.Config{})
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "limit"}})
	if err != nil || !res.IsError {
		t.Fatalf("call: %v %v, want an isError result", err, res)
	}
	root, _ := s.run(t, "tools/call echo")
	for key, want := range map[string]string{
		"hookflow.outcome": "blocked", "hookflow.decided_by": "traced/plugin:policy/tools:call-tool/beforeExecute/block",
		"error.type": "tool_error", "hookflow.error.code": "limited",
	} {
		if got := attr(root.Attributes, key); got != want {
			t.Errorf("run span %s = %q, want %q", key, got, want)
		}
	}
	counts := s.collect(t)
	for name, want := range map[string]int64{"hookflow.ratelimit.rejections": 1, "hookflow.run.blocked": 1} {
		if got := counts[name]; got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

func TestListAndUnknownFlowConfig(t *testing.T) {
	s := newSetup(t, otel.Config{Flows: []flows.ID{flows.ToolsListTools}})
	if _, err := s.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	root, _ := s.run(t, "tools/list")
	if attr(root.Attributes, "hookflow.outcome") != "ok" {
		t.Errorf("list span attributes %v", root.Attributes)
	}
	for _, sp := range s.spans.GetSpans() {
		if strings.HasPrefix(sp.Name, "tools/call") {
			t.Errorf("span %q of an untraced flow", sp.Name)
		}
	}

	srv := framework.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil)
	if err := srv.Use(otel.New(otel.Config{Flows: []flows.ID{"tools:cal-tool"}})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), `did you mean "tools:call-tool"`) {
		t.Errorf("Start with an unknown flow: %v", err)
	}
}

func TestAuditDroppedGauge(t *testing.T) {
	var dropped uint64 = 7
	s := newSetup(t, otel.Config{AuditDropped: func() uint64 { return dropped }})
	if got := s.collectValue(t, "hookflow.audit.dropped"); got != 7 {
		t.Errorf("hookflow.audit.dropped = %d, want 7", got)
	}
}

// collect returns, per metric name, the number of data points recorded:
// a counter's sum, a histogram's count.
func (s *setup) collect(t *testing.T) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := s.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] += int64(p.Count)
				}
			}
		}
	}
	return out
}

func (s *setup) collectValue(t *testing.T, name string) int64 {
	t.Helper()
	return s.collect(t)[name]
}
