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
