package host

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// oauthConfig is an upstream's OAuth client: client credentials at
// TokenURL, for Resource (RFC 8707; the upstream's URL by default). Its
// secret comes from the environment only: a configuration file is read
// by more people and programs than a secret should be.
type oauthConfig struct {
	TokenURL     string   `yaml:"token_url"`
	ClientID     string   `yaml:"client_id"`
	ClientSecret string   `yaml:"client_secret" env:"client_secret_env,only"`
	Scopes       []string `yaml:"scopes"`
	Resource     string   `yaml:"resource"`
}

// validate reports the keys o lacks, at the first of them, and its URLs
// that are not http or https ones.
func (o *oauthConfig) validate() error {
	var p problems
	var missing, fields []string
	for _, k := range []struct{ key, field, value string }{
		{"token_url", "token_url", o.TokenURL},
		{"client_id", "client_id", o.ClientID},
		{"client_secret_env", "client_secret", o.ClientSecret},
	} {
		if k.value == "" {
			missing, fields = append(missing, k.key), append(fields, k.field)
		}
	}
	if len(missing) > 0 {
		p.add(fields[0], "oauth needs %s", strings.Join(missing, ", "))
	}
	p.url("token_url", o.TokenURL)
	p.url("resource", o.Resource)
	return errors.Join(p...)
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
