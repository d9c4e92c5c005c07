package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestGatewayCommandOAuth runs the command on a configuration whose
// upstream is an OAuth resource server of a real authorization server:
// with the right client secret in the environment it connects and lists
// the upstream's tool; with a wrong one it fails, naming the upstream and
// giving the token endpoint's answer, not the secret.
func TestGatewayCommandOAuth(t *testing.T) {
	as := oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{"/mcp": {Scopes: []string{"billing.read"}}}})
	hs := httptest.NewUnstartedServer(nil)
	upURL := "http://" + hs.Listener.Addr().String() + "/mcp"
	rs, err := oauth.New(oauth.Config{Resource: upURL, Issuer: as.Issuer(), ScopesSupported: []string{"billing.read"}})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	srv := framework.NewServer(&mcp.Implementation{Name: "billing", Version: "1"}, &framework.Options{Logger: quiet})
	if err := framework.AddTool(srv, framework.Tool[struct{}, struct{}, struct{}]{
		Tool: &mcp.Tool{Name: "invoice", Description: "an invoice"},
		Execute: func(struct{}, context.Context, *mcp.CallToolRequest, struct{}) (struct{}, error) {
			return struct{}{}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	a := auth.New(rs.AuthConfig(auth.Config{Logger: quiet}))
	if err := srv.Use(a); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	h, err := a.Handler(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(hs.Close)

	file := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := "upstreams:\n  - name: billing\n    url: " + upURL + "\n    oauth:\n      token_url: " + as.TokenEndpoint() +
		"\n      client_id: " + oidctest.ServiceClient + "\n      client_secret_env: HOOKFLOW_TEST_BILLING_SECRET\n      scopes: [billing.read]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		secret string
		code   int
		want   []string
	}{
		{oidctest.ServiceSecret, exitOK, []string{"invoice"}},
		{"not-the-secret", exitFailed, []string{`upstream "billing"`, "the token endpoint " + as.TokenEndpoint() + " answered", "invalid_client"}},
	} {
		t.Setenv("HOOKFLOW_TEST_BILLING_SECRET", tc.secret)
		var out, errb bytes.Buffer
		code := run([]string{"gateway", "-config", file, "-explain", "tools:call-tool"}, stdio{out: &out, err: &errb})
		got := out.String() + errb.String()
		if code != tc.code {
			t.Errorf("secret %q: exit %d, want %d; output:\n%s", tc.secret, code, tc.code, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("secret %q: output:\n%s\nwant it to contain %q", tc.secret, got, w)
			}
		}
		if strings.Contains(got, tc.secret) {
			t.Errorf("secret %q: the output shows the secret:\n%s", tc.secret, got)
		}
	}
}
