package oauth_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// The scopes of the test resources: clients ask for weather.read at first
// (the metadata's scopes_supported), tools needing weather.admin make them
// step up.
const (
	readScope  = "weather.read"
	adminScope = "weather.admin"
)

// resources are the test authorization servers' resources: JWT ones at
// /mcp and /other and opaque ones at /opaque and /other-opaque (on any
// loopback port). Their tokens live an hour, so that tests can move their
// clocks by minutes.
func resources() map[string]oidctest.Resource {
	scopes := []string{readScope, adminScope}
	return map[string]oidctest.Resource{
		"/mcp":          {Scopes: scopes, TTL: time.Hour},
		"/other":        {Scopes: scopes, TTL: time.Hour},
		"/opaque":       {Scopes: scopes, TTL: time.Hour, Format: oidctest.Opaque},
		"/other-opaque": {Scopes: scopes, TTL: time.Hour, Format: oidctest.Opaque},
	}
}

// authServer is the authorization server the tests share; tests that
// change it put it back.
var authServer = oidctest.Shared{Options: oidctest.Options{Resources: resources()}}

func TestMain(m *testing.M) { os.Exit(authServer.Main(m)) }

// startAS starts an authorization server of the test's own, signing with
// keys.
func startAS(t *testing.T, keys ...jose.JSONWebKey) *oidctest.Server {
	t.Helper()
	return oidctest.Start(t, oidctest.Options{Keys: keys, Resources: resources()})
}

// newRS returns a resource server for cfg, failing the test on error.
func newRS(t testing.TB, cfg oauth.Config) *oauth.ResourceServer {
	t.Helper()
	rs, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// clock is a fake clock that tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mint signs claims with key as a JWT of type typ, naming the key's ID
// in kid unless it is empty.
func mint(t testing.TB, key jose.JSONWebKey, typ string, claims any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ))
	if key.KeyID != "" {
		opts = opts.WithHeader("kid", key.KeyID)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key.Key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsigned returns a JWS compact serialization of header and claims
// with an empty signature, as an "alg": "none" token is.
func unsigned(t testing.TB, header, claims any) string {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

// reason returns why err refused a token, or 0 when err is nil; it fails
// the test when err is not a *TokenError unwrapping to ErrInvalidToken.
func reason(t testing.TB, err error) oauth.Reason {
	t.Helper()
	if err == nil {
		return 0
	}
	var te *oauth.TokenError
	if !errors.As(err, &te) || !errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Fatalf("error %v (%T): want a *oauth.TokenError unwrapping to auth.ErrInvalidToken", err, err)
	}
	return te.Reason
}

// counter is an http.RoundTripper counting the requests whose path ends
// with suffix.
type counter struct {
	suffix string
	n      atomic.Int64
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, c.suffix) {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (c *counter) client() *http.Client { return &http.Client{Transport: c} }
