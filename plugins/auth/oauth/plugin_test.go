package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestPluginConfigValidate checks that each mistake of an auth section
// with oauth is reported at its path in the file, and that the auth keys
// oauth sets itself are refused beside it.
func TestPluginConfigValidate(t *testing.T) {
	good := func() *oauth.Config {
		return &oauth.Config{Resource: "https://mcp.example.com/mcp", Issuer: "https://auth.example.com"}
	}
	for _, tc := range []struct {
		name string
		cfg  oauth.PluginConfig
		want []string // "field: message part"
	}{
		{"good", oauth.PluginConfig{OAuth: good()}, nil},
		{"no oauth", oauth.PluginConfig{}, nil},
		{"empty oauth", oauth.PluginConfig{OAuth: &oauth.Config{}}, []string{"oauth.resource: required", "oauth.issuer: required"}},
		{"bad values", oauth.PluginConfig{OAuth: &oauth.Config{Resource: "http://mcp.example.com/mcp", Issuer: "https://auth.example.com",
			Algorithms: []string{"RS256", "HS256"}, ClockSkew: -time.Second, MaxTokenBytes: 2 << 20, JWKSURL: "ftp://keys"}},
			[]string{"oauth.resource: ", "loopback hosts only", "oauth.algorithms[1]: ", "symmetric", "oauth.clock_skew: must not be negative",
				"oauth.max_token_bytes: want 1 to 1048576 bytes", "oauth.jwks_url: "}},
		{"introspection without a secret", oauth.PluginConfig{OAuth: func() *oauth.Config {
			c := good()
			c.Introspection = &oauth.Introspection{ClientID: "rs", CacheSize: -1}
			return c
		}()}, []string{"oauth.introspection.client_secret_env: ", "oauth.introspection.cache_size: must not be negative"}},
		{"keys oauth sets", oauth.PluginConfig{OAuth: good(), Config: auth.Config{
			Tokens: []auth.Token{{Token: "t", User: "u"}}, ResourceMetadataURL: "https://x/.well-known/oauth-protected-resource",
			ScopesSupported: []string{"a"}, ClockSkew: time.Second}},
			[]string{"tokens: give tokens or oauth", "resource_metadata_url: oauth serves", "scopes_supported: with oauth", "clock_skew: with oauth"}},
		{"auth's own checks", oauth.PluginConfig{OAuth: good(), Config: auth.Config{Scopes: []string{"a b"}}}, []string{"scopes[0]: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, err := range leaves(tc.cfg.Validate()) {
				var fe *flows.Error
				if !errors.As(err, &fe) || fe.Code != flows.CodeInvalid {
					t.Fatalf("error %v is not an invalid *flows.Error", err)
				}
				got = append(got, fe.Field+": "+fe.Msg)
			}
			all := strings.Join(got, "\n")
			if len(tc.want) == 0 && all != "" {
				t.Fatalf("errors:\n%s", all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("errors:\n%s\nwant one holding %q", all, w)
				}
			}
		})
	}
}

// leaves returns the errors err joins, recursively.
func leaves(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, leaves(e)...)
	}
	return out
}

// TestClientAuthText checks the file's spelling of the introspection
// client authentication methods.
func TestClientAuthText(t *testing.T) {
	for _, tc := range []struct {
		text string
		want oauth.ClientAuth
		ok   bool
	}{{"client_secret_basic", oauth.ClientSecretBasic, true}, {"client_secret_post", oauth.ClientSecretPost, true}, {"basic", 0, false}, {"", 0, false}} {
		var a oauth.ClientAuth
		err := a.UnmarshalText([]byte(tc.text))
		if (err == nil) != tc.ok || a != tc.want {
			t.Errorf("UnmarshalText(%q) = %v, %v", tc.text, a, err)
		}
		if b, _ := tc.want.MarshalText(); tc.ok && string(b) != tc.text {
			t.Errorf("MarshalText(%v) = %q", tc.want, b)
		}
	}
}

// TestJWKSURLAndTokenBound checks a resource server given its keys'
// URL: it fetches no metadata (the issuer has none) and accepts a token
// its key signed; a token over MaxTokenBytes is refused as malformed
// before anything is fetched.
func TestJWKSURLAndTokenBound(t *testing.T) {
	key := oidctest.NewKey(t, "k1")
	var metadata, jwks int
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/keys" {
			metadata++
			http.NotFound(w, r)
			return
		}
		jwks++
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	}))
	defer as.Close()
	resource := "http://127.0.0.1:1/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.URL, JWKSURL: as.URL + "/keys", MaxTokenBytes: 4096})
	if err := rs.Discover(context.Background()); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	now := time.Now()
	tok := mint(t, key, "at+jwt", jwt.Claims{Issuer: as.URL, Subject: "ada", Audience: jwt.Audience{resource},
		Expiry: jwt.NewNumericDate(now.Add(time.Minute)), IssuedAt: jwt.NewNumericDate(now)})
	if ti, err := rs.Verify(context.Background(), tok, nil); err != nil || ti.UserID != "ada" {
		t.Errorf("Verify = %+v, %v; want ada's token accepted", ti, err)
	}
	if metadata != 0 || jwks != 1 {
		t.Errorf("%d metadata and %d JWKS requests, want 0 and 1", metadata, jwks)
	}
	long := tok + "." + strings.Repeat("a", 4096)
	if _, err := rs.Verify(context.Background(), long, nil); reason(t, err) != oauth.Malformed || !errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Errorf("a token over MaxTokenBytes: %v, want malformed, an invalid token", err)
	}
}

// TestPluginHandlerDiscovers checks that the plugin of a file stops
// before serving when its issuer does not answer with metadata, saying
// which, and that the resource server's warning reaches the server's
// logger, which the file cannot name.
func TestPluginHandlerDiscovers(t *testing.T) {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer as.Close()
	logs := &plugintest.Buffer{}
	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &framework.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	p := oauth.NewPlugin(oauth.PluginConfig{OAuth: &oauth.Config{Resource: "http://127.0.0.1:1/mcp", Issuer: as.URL}})
	if err := srv.Use(p); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	_, err := p.Handler(srv, nil)
	if err == nil || !strings.Contains(err.Error(), "the authorization server "+as.URL) {
		t.Errorf("Handler: %v, want an error naming the authorization server", err)
	}
	if !strings.Contains(logs.String(), "oauth: discovering the authorization server failed") {
		t.Errorf("the server's log has no warning of the resource server:\n%s", logs.String())
	}
}
