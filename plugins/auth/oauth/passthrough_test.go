package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// recorder is an upstream MCP server over streamable HTTP that records the
// Authorization header and the _meta of every request it receives.
type recorder struct {
	mu      sync.Mutex
	headers []string
	metas   []mcp.Meta
}

func (r *recorder) serve(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.mu.Lock()
			r.metas = append(r.metas, req.Params.Meta)
			r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.headers = append(r.headers, req.Header.Get("Authorization"))
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestNoTokenPassthrough: a gateway behind the OAuth resource server calls
// its upstream with its own configured credential, never with the token
// the client presented (the MCP authorization specification forbids token
// passthrough): not in a header, not in the request's _meta.
func TestNoTokenPassthrough(t *testing.T) {
	as := authServer.Get(t)
	var up recorder
	const own = "the-gateway-s-own-credential"
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", URL: up.serve(t), Token: own}}})
	t.Cleanup(func() { _ = gw.Close() })
	w := serveWeather(t, as, nil, gw)
	token := as.ClientCredentials(t, w.url, readScope)

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: w.url, DisableStandaloneSSE: true,
		HTTPClient: plugintest.BearerClient(token, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("calling the mounted tool: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "echoed" {
		t.Fatalf("the mounted tool answered %+v, want the upstream's answer", res.Content[0])
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.headers) == 0 || len(up.metas) != 1 {
		t.Fatalf("the upstream saw %d requests and %d calls, want some requests and 1 call", len(up.headers), len(up.metas))
	}
	for i, h := range up.headers {
		if h != "Bearer "+own {
			t.Errorf("upstream request %d: Authorization %q, want the gateway's own credential", i, h)
		}
		if strings.Contains(h, token) {
			t.Errorf("upstream request %d carries the client's token", i)
		}
	}
	for k, v := range up.metas[0] {
		if s, ok := v.(string); ok && strings.Contains(s, token) {
			t.Errorf("the client's token reached the upstream in _meta[%q]", k)
		}
	}
}
