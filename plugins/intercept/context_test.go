package intercept_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
	"github.com/hookflow/hookflow/plugins/otel"
)

// Every invocation carries the SEP's context: the principal the request
// runs for (anonymous without a bearer token), its trace (the run's
// OpenTelemetry span when the otel plugin traces the run, else hookflow's
// request ID, with no span) and its MCP session (the transport's session
// ID: over streamable HTTP; in-memory sessions have none). The "context"
// validator of the test host warns with the context it received, which
// the audit event records.
func TestInvocationContext(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		anonymous := wire.Principal{Type: wire.PrincipalAnonymous}
		tests := []struct {
			name      string
			token     *auth.TokenInfo
			traced    bool // the otel plugin traces the run
			overHTTP  bool // the client calls over streamable HTTP
			principal wire.Principal
		}{
			{name: "anonymous", principal: anonymous},
			{name: "authenticated", token: &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)},
				principal: wire.Principal{Type: wire.PrincipalUser, ID: "alice"}},
			{name: "traced", traced: true, principal: anonymous},
			{name: "over HTTP", overHTTP: true, principal: anonymous},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				spans := tracetest.NewInMemoryExporter()
				s := newSetupWith(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "context")}}, func(o *plugintest.Options) {
					o.Token = tt.token
					if tt.traced {
						tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
						t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
						o.Plugins = append([]framework.Plugin{otel.New(otel.Config{TracerProvider: tp, Flows: []flows.ID{flows.ToolsCallTool}})}, o.Plugins...)
					}
				})
				session := ""
				if tt.overHTTP {
					session = s.echoOverHTTP(t, "hi")
				} else {
					s.echo("hi").WantText(plugintest.EchoText("hi"))
				}
				ev := s.last(t)
				if len(ev.Decisions) != 1 || ev.Decisions[0].By != "g:context" {
					t.Errorf("%s: decisions %+v, want the context validator's", tt.name, ev.Decisions)
					return
				}
				var got wire.InvocationContext
				if err := json.Unmarshal([]byte(ev.Decisions[0].Reason), &got); err != nil {
					t.Errorf("%s: the host's report %q: %v", tt.name, ev.Decisions[0].Reason, err)
					return
				}
				if got.Principal == nil || !reflect.DeepEqual(*got.Principal, tt.principal) {
					t.Errorf("%s: principal %+v, want %+v", tt.name, got.Principal, tt.principal)
				}
				wantTrace, wantSpan := ev.RequestID, ""
				if tt.traced {
					sc := runSpan(t, spans)
					wantTrace, wantSpan = sc.TraceID().String(), sc.SpanID().String()
				}
				if got.TraceID != wantTrace || got.SpanID != wantSpan {
					t.Errorf("%s: traceId %q spanId %q, want %q %q", tt.name, got.TraceID, got.SpanID, wantTrace, wantSpan)
				}
				if tt.overHTTP && session == "" {
					t.Errorf("%s: the client has no session ID", tt.name)
				}
				if ev.SessionID != session {
					t.Errorf("%s: the audit event's session %q, want the client's %q", tt.name, ev.SessionID, session)
				}
				want := ""
				if session != "" {
					sum := sha256.Sum256([]byte(session))
					want = hex.EncodeToString(sum[:])
				}
				if got.SessionID != want {
					t.Errorf("%s: sessionId %q, want %q, the SHA-256 of the client's %q", tt.name, got.SessionID, want, session)
				}
				if _, err := time.Parse(time.RFC3339Nano, got.Timestamp); err != nil {
					t.Errorf("%s: timestamp: %v", tt.name, err)
				}
			})
		}
	})
}

// echoOverHTTP serves the setup's server over streamable HTTP, calls the
// echo tool with text from a client connected to it, and returns the
// client's session ID.
func (s *setup) echoOverHTTP(t *testing.T, text string) string {
	t.Helper()
	if err := s.h.Start(); err != nil {
		t.Fatal(err)
	}
	h, err := s.h.Server().HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: plugintest.ToolEcho, Arguments: plugintest.Text{Text: text}})
	if err != nil || res.IsError {
		t.Fatalf("calling echo over HTTP: %v %+v", err, res)
	}
	return cs.ID()
}

// runSpan returns the span context of the one run the otel plugin traced.
func runSpan(t *testing.T, spans *tracetest.InMemoryExporter) trace.SpanContext {
	t.Helper()
	var runs []trace.SpanContext
	for _, sp := range spans.GetSpans() {
		if sp.SpanKind == trace.SpanKindServer {
			runs = append(runs, sp.SpanContext)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("the otel plugin traced %d runs, want 1", len(runs))
	}
	return runs[0]
}

// The sending side carries the invocation context's fields as the
// working group's text has them (principal with type, id and claims,
// traceId, spanId, timestamp, sessionId): Chain.Run sends the caller's
// context as given, claims included, with the invoker's clock when it has
// no timestamp; SendingMiddleware sends an anonymous principal and the
// trace of the request's span. Every context the host receives is valid
// against the SEP's schema.
func TestInvocationContextSending(t *testing.T) {
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *wire.InvocationContext, 1)
	srv := framework.NewServer(&mcp.Implementation{Name: "context"}, nil)
	if err := srv.Use(host.New(host.Config{Interceptors: []host.Interceptor{
		host.Validator(host.Spec{Name: "context", Events: []string{"tools/call"}}, func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
			got <- inv.Context
			return host.Allow(), nil
		}),
	}})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{{Name: "h", Transport: host.InMemory(srv)}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })

	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled})
	full := &wire.InvocationContext{
		Principal: &wire.Principal{Type: wire.PrincipalUser, ID: "alice", Claims: map[string]any{"tenant": "acme", "roles": []any{"admin"}}},
		TraceID:   "trace-1", SpanID: "span-1", Timestamp: "2026-12-07T11:00:00Z", SessionID: "session-1",
	}
	noClock := *full
	noClock.Timestamp = ""
	tests := []struct {
		name string
		send func() error
		want wire.InvocationContext // Timestamp "" for "the invoker's clock"
	}{
		{name: "Run, every field", send: func() error {
			_, err := ch.Run(context.Background(), intercept.Send, intercept.Call{Event: "tools/call", Phase: wire.Request,
				Payload: json.RawMessage(`{"method":"tools/call","params":{"name":"echo"}}`), Context: full})
			return err
		}, want: *full},
		{name: "Run, no timestamp", send: func() error {
			_, err := ch.Run(context.Background(), intercept.Send, intercept.Call{Event: "tools/call", Phase: wire.Request,
				Payload: json.RawMessage(`{"method":"tools/call","params":{"name":"echo"}}`), Context: &noClock})
			return err
		}, want: noClock},
		{name: "Run, no context", send: func() error {
			_, err := ch.Run(context.Background(), intercept.Send, intercept.Call{Event: "tools/call", Phase: wire.Request,
				Payload: json.RawMessage(`{"method":"tools/call","params":{"name":"echo"}}`)})
			return err
		}, want: wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalAnonymous}}},
		{name: "SendingMiddleware, traced", send: func() error {
			return callTraced(trace.ContextWithSpanContext(context.Background(), sc), ch)
		}, want: wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalAnonymous}, TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.send(); err != nil {
				t.Fatal(err)
			}
			ic := <-got
			if ic == nil {
				t.Fatal("the host received no context")
			}
			b, _ := json.Marshal(&wire.InvokeParams{Name: "context", Event: "tools/call", Phase: wire.Request, Payload: json.RawMessage(`{}`), Context: ic})
			if err := v.Validate(wire.DefInvokeParams, b); err != nil {
				t.Errorf("the context is not the SEP's: %v", err)
			}
			if tt.want.Timestamp == "" {
				if _, err := time.Parse(time.RFC3339Nano, ic.Timestamp); err != nil {
					t.Errorf("timestamp %q: %v", ic.Timestamp, err)
				}
				c := *ic
				c.Timestamp = ""
				ic = &c
			}
			if !reflect.DeepEqual(*ic, tt.want) {
				gb, _ := json.Marshal(ic)
				wb, _ := json.Marshal(tt.want)
				t.Errorf("context %s\nwant    %s", gb, wb)
			}
		})
	}
}

// callTraced calls an echo tool under ctx from a client whose sending
// middleware is ch.
func callTraced(ctx context.Context, ch *intercept.Chain) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, noteArgs, error) {
		return nil, in, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil)
	client.AddSendingMiddleware(ch.SendingMiddleware())
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"note": "hi"}})
	return err
}
