package oauth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestIntrospection checks opaque tokens at a real introspection endpoint:
// active and inactive tokens, tokens for another resource, the client
// authentication methods and bad credentials.
func TestIntrospection(t *testing.T) {
	as := authServer.Get(t)
	const resource = "http://127.0.0.1:8/opaque"
	serviceToken := as.ClientCredentials(t, resource, readScope)
	userToken := as.AuthorizationCode(t, resource, "bob", readScope, adminScope)
	otherToken := as.ClientCredentials(t, "http://127.0.0.1:8/other-opaque", readScope)
	creds := func(auth oauth.ClientAuth) *oauth.Introspection {
		return &oauth.Introspection{ClientID: oidctest.IntrospectionClient, ClientSecret: oidctest.IntrospectionSecret, Auth: auth}
	}

	tests := []struct {
		name   string
		in     *oauth.Introspection
		token  string
		want   oauth.Reason // 0: accepted
		sub    string
		client string
	}{
		{name: "client credentials token", in: creds(oauth.ClientSecretBasic), token: serviceToken, sub: oidctest.ServiceClient, client: oidctest.ServiceClient},
		{name: "authorization code token", in: creds(oauth.ClientSecretBasic), token: userToken, sub: "bob", client: oidctest.AppClient},
		{name: "client_secret_post", in: creds(oauth.ClientSecretPost), token: userToken, sub: "bob", client: oidctest.AppClient},
		{name: "unknown token", in: creds(oauth.ClientSecretBasic), token: "2YotnFZFEjr1zCsicMWpAA", want: oauth.Inactive},
		{name: "token for another resource", in: creds(oauth.ClientSecretBasic), token: otherToken, want: oauth.Audience},
		{name: "a client the server does not let introspect", token: serviceToken, want: oauth.Inactive,
			in: &oauth.Introspection{ClientID: oidctest.OtherClient, ClientSecret: oidctest.OtherSecret}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), Introspection: tt.in})
			ti, err := rs.Verify(context.Background(), tt.token, nil)
			if got := reason(t, err); got != tt.want {
				t.Fatalf("Verify: %v; want reason %v", err, tt.want)
			}
			if err != nil {
				return
			}
			p, ok := oauth.PrincipalOf(ti)
			if !ok || p.Subject != tt.sub || p.ClientID != tt.client || !p.Introspected || p.Issuer != as.Issuer() || len(p.Scopes) == 0 || p.Expiry.IsZero() {
				t.Errorf("principal %+v, want subject %q, client %q, introspected, with scopes and expiry", p, tt.sub, tt.client)
			}
			if ti.UserID != tt.sub || !ti.Expiration.Equal(p.Expiry) {
				t.Errorf("TokenInfo %+v, want UserID %q", ti, tt.sub)
			}
		})
	}

	t.Run("wrong secret", func(t *testing.T) {
		rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(),
			Introspection: &oauth.Introspection{ClientID: oidctest.IntrospectionClient, ClientSecret: "wrong"}})
		_, err := rs.Verify(context.Background(), serviceToken, nil)
		var ue *oauth.UnavailableError
		if !errors.As(err, &ue) || ue.What != "introspection" {
			t.Errorf("Verify: %v; want an *UnavailableError: the token may be good, the server's credentials are not", err)
		}
	})
}

// TestIntrospectionCache checks that results are reused for CacheTTL,
// never past the token's expiry, refusals included, that the cache keeps
// CacheSize results, and that a negative TTL turns it off.
func TestIntrospectionCache(t *testing.T) {
	as := authServer.Get(t)
	const resource = "http://127.0.0.1:8/opaque"
	tokens := []string{
		as.ClientCredentials(t, resource, readScope),
		as.ClientCredentials(t, resource, adminScope),
		as.ClientCredentials(t, resource, readScope, adminScope),
	}
	const unknown = "2YotnFZFEjr1zCsicMWpAA"
	setup := func(ttl time.Duration, size int) (*oauth.ResourceServer, *counter, *clock) {
		c := &counter{suffix: "/introspection"}
		rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), HTTPClient: c.client(),
			Introspection: &oauth.Introspection{ClientID: oidctest.IntrospectionClient, ClientSecret: oidctest.IntrospectionSecret, CacheTTL: ttl, CacheSize: size}})
		clk := newClock()
		oauth.SetClock(rs, clk.Now)
		return rs, c, clk
	}
	verify := func(t *testing.T, rs *oauth.ResourceServer, token string, want oauth.Reason) {
		t.Helper()
		if _, err := rs.Verify(context.Background(), token, nil); reason(t, err) != want {
			t.Fatalf("Verify: %v; want reason %v", err, want)
		}
	}

	t.Run("reused for the TTL", func(t *testing.T) {
		rs, c, clk := setup(time.Minute, 0)
		for range 3 {
			verify(t, rs, tokens[0], 0)
			verify(t, rs, unknown, oauth.Inactive)
		}
		if n := c.n.Load(); n != 2 {
			t.Errorf("%d introspections for 3 uses of two tokens, want 2", n)
		}
		clk.Advance(time.Minute)
		verify(t, rs, tokens[0], 0)
		verify(t, rs, unknown, oauth.Inactive)
		if n := c.n.Load(); n != 4 {
			t.Errorf("%d introspections after the TTL, want 4", n)
		}
	})
	t.Run("never past the token's expiry", func(t *testing.T) {
		rs, c, clk := setup(24*time.Hour, 0)
		verify(t, rs, tokens[0], 0)
		clk.Advance(59 * time.Minute)
		verify(t, rs, tokens[0], 0)
		if n := c.n.Load(); n != 1 {
			t.Errorf("%d introspections within the token's life, want 1", n)
		}
		// The token (an hour) expired by this clock: the endpoint, on its
		// real clock, still says active, and the server checks exp itself.
		clk.Advance(2 * time.Minute)
		verify(t, rs, tokens[0], oauth.Expired)
		if n := c.n.Load(); n != 2 {
			t.Errorf("%d introspections, want 2: the expired token was asked about again", n)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		rs, c, _ := setup(time.Minute, 2)
		for _, tok := range tokens {
			verify(t, rs, tok, 0)
		}
		verify(t, rs, tokens[2], 0) // still cached
		verify(t, rs, tokens[0], 0) // dropped, the oldest
		if n := c.n.Load(); n != 4 {
			t.Errorf("%d introspections, want 4: three tokens, then the oldest again", n)
		}
	})
	t.Run("off", func(t *testing.T) {
		rs, c, _ := setup(-1, 0)
		verify(t, rs, tokens[0], 0)
		verify(t, rs, tokens[0], 0)
		if n := c.n.Load(); n != 2 {
			t.Errorf("%d introspections without a cache, want 2", n)
		}
	})
}
