package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/internal/oidctest"
)

// TestGatewayEndpointsFromFile runs the gateway binary with two virtual
// endpoints over one upstream, each an OAuth protected resource of its
// own: a user's token for one endpoint opens that endpoint, which lists
// and calls its own tools (one renamed), and is refused at the other
// (its audience is not the other's), which names its own metadata.
func TestGatewayEndpointsFromFile(t *testing.T) {
	as := oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{
		"/mcp/support": {Scopes: []string{"tools"}, TTL: time.Hour},
		"/mcp/finance": {Scopes: []string{"tools"}, TTL: time.Hour},
	}})
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	addr := freeAddr(t)
	base := "http://" + addr
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := `serve: {http: '` + addr + `', health: /health, endpoints_only: true}
upstreams:
  - {name: up, url: '` + upURL + `'}
endpoints:
  - path: /mcp/support
    select: [{tools: [echo, fail]}]
    overrides: {echo: {name: say}}
    plugins:
      auth: {oauth: {resource: ` + base + `/mcp/support, issuer: ` + as.Issuer() + `}}
  - path: /mcp/finance
    select: [{annotations: {readOnlyHint: true}}]
    plugins:
      auth: {oauth: {resource: ` + base + `/mcp/finance, issuer: ` + as.Issuer() + `}}
`
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	startGateway(t, hookflow, nil, "-config", config)

	for _, tc := range []struct {
		path  string
		tools []string
	}{
		{"/mcp/support", []string{"fail", "say"}},
		{"/mcp/finance", []string{"pid"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resource := base + tc.path
			cs := connectWith(t, resource, as.AuthorizationCode(t, resource, "sam", "tools"))
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			if slices.Sort(names); !slices.Equal(names, tc.tools) {
				t.Errorf("lists %v, want %v", names, tc.tools)
			}
			// The token of this endpoint is refused at the other.
			other := "/mcp/finance"
			if tc.path == other {
				other = "/mcp/support"
			}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+other, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+as.AuthorizationCode(t, resource, "sam", "tools"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if challenge := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized ||
				!strings.Contains(challenge, "/.well-known/oauth-protected-resource"+other) {
				t.Errorf("%s with %s's token: %d %q, want 401 naming %s's metadata", other, tc.path, resp.StatusCode, challenge, other)
			}
			meta, err := http.Get(base + "/.well-known/oauth-protected-resource" + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			meta.Body.Close()
			if meta.StatusCode != http.StatusOK {
				t.Errorf("%s's metadata: %d, want 200", tc.path, meta.StatusCode)
			}
		})
	}
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp with endpoints_only: %d, want 404", resp.StatusCode)
	}
}
