package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/otel"
)

// benchUpstream serves a Go SDK server with a trivial echo tool over
// stateful streamable HTTP, in process.
func benchUpstream(b *testing.B) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(hs.Close)
	return hs.URL
}

func benchCalls(b *testing.B, url string) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	if _, err := cs.CallTool(ctx, p); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall is a trivial tool call over loopback streamable HTTP, in
// one process: to the upstream directly, through a gateway, and through a
// gateway measured by the otel plugin with the prometheus exporter (the
// gateway command's serve.metrics).
func BenchmarkCall(b *testing.B) {
	b.Run("direct", func(b *testing.B) { benchCalls(b, benchUpstream(b)) })
	b.Run("gateway", func(b *testing.B) { benchGateway(b) })
	b.Run("gateway_prometheus", func(b *testing.B) {
		p := otel.New(otel.Config{Flows: []flows.ID{flows.ToolsCallTool}, Exporter: "prometheus"})
		defer p.Close(context.Background())
		benchGateway(b, p)
	})
}

// benchGateway benchmarks calls through a gateway, with plugins.
func benchGateway(b *testing.B, plugins ...framework.Plugin) {
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", URL: benchUpstream(b)}}})
	defer gw.Close()
	srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
	if err := srv.Use(append([]framework.Plugin{gw}, plugins...)...); err != nil {
		b.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	benchCalls(b, hs.URL)
}
