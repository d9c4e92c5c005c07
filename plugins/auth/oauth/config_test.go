package oauth_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestConfig checks that New names every bad field, and accepts the
// good configurations.
func TestConfig(t *testing.T) {
	good := oauth.Config{Resource: "https://mcp.example.com/mcp", Issuer: "https://auth.example.com"}
	tests := []struct {
		name   string
		change func(*oauth.Config)
		want   []string // substrings of the error; none: accepted
	}{
		{name: "minimal", change: func(*oauth.Config) {}},
		{name: "loopback http", change: func(c *oauth.Config) { c.Resource, c.Issuer = "http://127.0.0.1:8080/mcp", "http://localhost:3000" }},
		{name: "introspection", change: func(c *oauth.Config) {
			c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "s", Auth: oauth.ClientSecretPost}
		}},
		{name: "nothing", change: func(c *oauth.Config) { *c = oauth.Config{} },
			want: []string{"Resource: required", "Issuer: required"}},
		{name: "http on a public host", change: func(c *oauth.Config) { c.Resource = "http://mcp.example.com/mcp" },
			want: []string{"Resource:", "http is allowed on loopback hosts only"}},
		{name: "relative", change: func(c *oauth.Config) { c.Issuer = "auth.example.com" },
			want: []string{"Issuer:", "not an absolute URL"}},
		{name: "fragment", change: func(c *oauth.Config) { c.Resource = "https://mcp.example.com/mcp#x" },
			want: []string{"Resource:", "has a fragment"}},
		{name: "query", change: func(c *oauth.Config) { c.Issuer = "https://auth.example.com?tenant=1" },
			want: []string{"Issuer:", "has a query"}},
		{name: "scope", change: func(c *oauth.Config) { c.ScopesSupported = []string{"ok", "two words"} },
			want: []string{"ScopesSupported[1]:", `"two words"`}},
		{name: "none", change: func(c *oauth.Config) { c.Algorithms = []string{"none"} },
			want: []string{"Algorithms[0]:", `"none" is never accepted`}},
		{name: "HS256", change: func(c *oauth.Config) { c.Algorithms = []string{"ES256", "HS256"} },
			want: []string{"Algorithms[1]:", "symmetric"}},
		{name: "typo", change: func(c *oauth.Config) { c.Algorithms = []string{"ES265"} },
			want: []string{"Algorithms[0]:", `did you mean "ES256"`}},
		{name: "empty type", change: func(c *oauth.Config) { c.TokenTypes = []string{" "} },
			want: []string{"TokenTypes[0]: empty type"}},
		{name: "negative durations", change: func(c *oauth.Config) { c.ClockSkew, c.FetchTimeout = -time.Second, -time.Second },
			want: []string{"ClockSkew: must not be negative", "FetchTimeout: must not be negative"}},
		{name: "token cache off", change: func(c *oauth.Config) { c.TokenCacheSize = -1 }},
		{name: "token cache too large", change: func(c *oauth.Config) { c.TokenCacheSize = 1 << 21 },
			want: []string{"TokenCacheSize: at most 1048576"}},
		{name: "introspection without credentials", change: func(c *oauth.Config) { c.Introspection = &oauth.Introspection{ClientID: "rs"} },
			want: []string{"Introspection: a client ID and a client secret are required"}},
		{name: "introspection method", change: func(c *oauth.Config) {
			c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "s", Auth: 7}
		}, want: []string{"Introspection.Auth: unknown method 7"}},
		{name: "introspection endpoint", change: func(c *oauth.Config) {
			c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "s", Endpoint: "http://auth.example.com/introspect"}
		}, want: []string{"Introspection.Endpoint:", "loopback hosts only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.change(&cfg)
			_, err := oauth.New(cfg)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New accepted %+v", cfg)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestMetadataURL checks RFC 9728 §3.1's well-known URI of a resource.
func TestMetadataURL(t *testing.T) {
	for resource, want := range map[string]string{
		"https://mcp.example.com":             "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/":            "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/mcp":         "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com:8443/a/mcp":  "https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/mcp",
		"http://127.0.0.1:8080/server/mcp":    "http://127.0.0.1:8080/.well-known/oauth-protected-resource/server/mcp",
		"https://mcp.example.com/a%2Fb/mcp":   "https://mcp.example.com/.well-known/oauth-protected-resource/a%2Fb/mcp",
		"https://mcp.example.com/with%20room": "https://mcp.example.com/.well-known/oauth-protected-resource/with%20room",
	} {
		rs := newRS(t, oauth.Config{Resource: resource, Issuer: "https://auth.example.com"})
		if got := rs.MetadataURL(); got != want {
			t.Errorf("resource %s: metadata URL %s, want %s", resource, got, want)
		}
	}
}

// TestAuthConfig checks what AuthConfig sets and what it keeps.
func TestAuthConfig(t *testing.T) {
	rs := newRS(t, oauth.Config{Resource: "https://mcp.example.com/mcp", Issuer: "https://auth.example.com", ClockSkew: time.Minute, ScopesSupported: []string{"a", "b"}})
	c := rs.AuthConfig(auth.Config{ScopeChallenge: true, ClockSkew: time.Hour, ResourceMetadataURL: "https://elsewhere.example.com/md", ScopesSupported: []string{"other"}})
	if c.Verifier == nil || c.ResourceMetadataURL != rs.MetadataURL() || c.ClockSkew != time.Minute || !c.ScopeChallenge ||
		!slices.Equal(c.ScopesSupported, rs.Metadata().ScopesSupported) {
		t.Errorf("AuthConfig: %+v; want the verifier, the metadata URL, the metadata's scopes_supported, the skew of the resource server, and ScopeChallenge kept", c)
	}
}
