package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/oidctest"
)

// TestGatewayPolicyFromFile runs the gateway binary configured only from
// its file, as an OAuth protected resource of a real authorization
// server whose tokens carry each user's groups, with policy rules over
// those claims and over the call's arguments. Two users of two teams,
// connected at once, each list and call what the rules give their team:
// the finance user sees and calls pid; the support user does not see it
// and is refused with the rule's message; echo is listed to both, and
// its arguments decide its calls.
func TestGatewayPolicyFromFile(t *testing.T) {
	as := oidctest.Start(t, oidctest.Options{
		Resources: map[string]oidctest.Resource{"/mcp": {Scopes: []string{"tools.read"}, TTL: time.Hour}},
		Claims: map[string]map[string]any{
			"fay": {"groups": []string{"finance", "staff"}},
			"sam": {"groups": []string{"support", "staff"}},
		},
	})
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	addr := freeAddr(t)
	resource := "http://" + addr + "/mcp"
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := `serve: {http: '` + addr + `', health: /health}
upstreams:
  - {name: up, url: '` + upURL + `', allow_tools: [pid, echo, fail]}
plugins:
  auth:
    oauth:
      resource: ` + resource + `
      issuer: ` + as.Issuer() + `
      scopes_supported: [tools.read]
  policy:
    rules:
      - name: pid-for-finance
        when: entity.upstream == "up" && entity.name == "pid"
        allow: '"groups" in claims && "finance" in claims.groups'
        message: pid is for the finance team
      - name: staff-only
        allow: '"groups" in claims && "staff" in claims.groups'
      - name: no-secrets-from-support
        when: entity.name == "echo" && "support" in claims.groups
        allow: '!args.text.contains("secret")'
        message: support may not echo secrets
`
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	startGateway(t, hookflow, nil, "-config", config)

	fay := connectWith(t, resource, as.AuthorizationCode(t, resource, "fay", "tools.read"))
	sam := connectWith(t, resource, as.AuthorizationCode(t, resource, "sam", "tools.read"))
	for _, tc := range []struct {
		who   string
		cs    *mcp.ClientSession
		tools []string
		calls map[string]string // tool → the text of its result, or of its refusal
	}{
		{"fay (finance)", fay, []string{"echo", "fail", "pid"}, map[string]string{"pid": "", "echo": "secret"}},
		{"sam (support)", sam, []string{"echo", "fail"}, map[string]string{"pid": "pid is for the finance team", "echo": "support may not echo secrets"}},
	} {
		t.Run(tc.who, func(t *testing.T) {
			res, err := tc.cs.ListTools(t.Context(), nil)
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
			for tool, want := range tc.calls {
				params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
				if tool == "echo" {
					params.Arguments = map[string]any{"text": "a secret"}
				}
				r, err := tc.cs.CallTool(t.Context(), params)
				if err != nil {
					t.Fatalf("calling %s: %v", tool, err)
				}
				text := ""
				if len(r.Content) > 0 {
					if c, ok := r.Content[0].(*mcp.TextContent); ok {
						text = c.Text
					}
				}
				refused := strings.Contains(want, " ")
				if r.IsError != refused || !strings.Contains(text, want) {
					t.Errorf("calling %s: isError %v, %q; want isError %v with %q", tool, r.IsError, text, refused, want)
				}
			}
		})
	}

	t.Run("a token without groups sees nothing", func(t *testing.T) {
		cs := connectWith(t, resource, as.ClientCredentials(t, resource, "tools.read"))
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(res.Tools) != 0 {
			t.Fatalf("lists %v (%v), want none", res, err)
		}
	})
}

// connectWith connects an MCP client to url with token as its bearer
// token, for the rest of the test.
func connectWith(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	httpClient := plugintest.BearerClient(token, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
