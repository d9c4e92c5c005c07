package gateway_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/hookflow/hookflow/plugins/gateway"
)

// clientCredentials is a token source that fetches a new token at each
// call: the gateway caches tokens itself, and asks again after a 401.
type clientCredentials struct {
	ctx context.Context
	cfg *clientcredentials.Config
}

// Token fetches a new token.
func (c clientCredentials) Token() (*oauth2.Token, error) { return c.cfg.Token(c.ctx) }

// Example_tokenSource mounts an upstream that is an OAuth resource server,
// with tokens the gateway gets through client credentials for the
// upstream's URL (the RFC 8707 resource indicator), each token request
// bounded by ten seconds.
func Example_tokenSource() {
	const billing = "https://billing.internal/mcp"
	cc := &clientcredentials.Config{
		ClientID:       "hookflow-gateway",
		ClientSecret:   os.Getenv("BILLING_CLIENT_SECRET"),
		TokenURL:       "https://idp.internal/oauth/token",
		Scopes:         []string{"billing:read"},
		EndpointParams: url.Values{"resource": {billing}},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 10 * time.Second})
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "billing", URL: billing, TokenSource: clientCredentials{ctx, cc}}}})
	_ = gw // srv.Use(gw) or app.Use(gw), as in Example
}
