package host

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// oauthConfig is an upstream's OAuth client: client credentials at
// TokenURL, for Resource (RFC 8707; the upstream's URL by default).
type oauthConfig struct {
	TokenURL     string
	ClientID     string
	ClientSecret string
	Scopes       []string
	Resource     string
}

// oauth reads an upstream's OAuth client. Its secret comes from the
// environment only: a configuration file is read by more people and
// programs than a secret should be.
func (d *decoder) oauth(n *yaml.Node) *oauthConfig {
	o := &oauthConfig{}
	given := map[string]bool{}
	d.Mapping(n, "oauth", map[string]func(*yaml.Node){
		"token_url": func(n *yaml.Node) { o.TokenURL, given["token_url"] = d.url(n), true },
		"client_id": func(n *yaml.Node) { o.ClientID, given["client_id"] = d.Str(n), true },
		"client_secret": func(n *yaml.Node) {
			given["client_secret_env"] = true // reported here, not as missing
			d.Errorf(n, "a client secret does not belong in the configuration file: put it in an environment variable and name that with client_secret_env")
		},
		"client_secret_env": func(n *yaml.Node) { o.ClientSecret, given["client_secret_env"] = d.Env(n), true },
		"scopes":            func(n *yaml.Node) { o.Scopes = d.Strs(n) },
		"resource":          func(n *yaml.Node) { o.Resource = d.url(n) },
	})
	var missing []string
	for _, k := range []string{"token_url", "client_id", "client_secret_env"} {
		if !given[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 && (n.Kind == yaml.MappingNode || n.Tag == "!!null") {
		d.Errorf(n, "oauth needs %s", strings.Join(missing, ", "))
	}
	return o
}

// tokenSource returns the token source of an upstream at upstreamURL: client
// credentials, a new token at each call (the gateway caches them), each
// request to the token endpoint bounded by timeout.
func (o *oauthConfig) tokenSource(upstreamURL string, timeout time.Duration) oauth2.TokenSource {
	cc := &clientcredentials.Config{
		ClientID:       o.ClientID,
		ClientSecret:   o.ClientSecret,
		TokenURL:       o.TokenURL,
		Scopes:         o.Scopes,
		EndpointParams: map[string][]string{"resource": {cmp.Or(o.Resource, upstreamURL)}},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: timeout})
	return clientCredentials{cfg: cc, ctx: ctx}
}

// clientCredentials is a token source that fetches a new token at each
// call.
type clientCredentials struct {
	cfg *clientcredentials.Config
	ctx context.Context
}

func (c clientCredentials) Token() (*oauth2.Token, error) { return c.cfg.Token(c.ctx) }
