package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestJWT checks JWT access tokens against a real authorization server:
// tokens it issued through client credentials and through authorization
// code with PKCE, and tokens minted with its own signing key (or another)
// to reach the cases it would never issue.
func TestJWT(t *testing.T) {
	as := authServer.Get(t)
	k1 := as.Keys()[0]
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer()})

	now := time.Now()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{
			"iss": as.Issuer(), "sub": "alice", "aud": resource, "client_id": "mcp-app",
			"scope": readScope, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": "j1",
		}
		if change != nil {
			change(c)
		}
		return c
	}
	forger := oidctest.NewKey(t, "k1") // the issuer's kid, another key
	noKid := k1
	noKid.KeyID = ""
	pub, err := x509.MarshalPKIXPublicKey(k1.Key.(*ecdsa.PrivateKey).Public())
	if err != nil {
		t.Fatal(err)
	}
	hs256 := jose.JSONWebKey{Key: pub, KeyID: "k1", Algorithm: string(jose.HS256)}
	real := as.ClientCredentials(t, resource, readScope)
	// The real token's header and signature around other claims.
	parts := strings.Split(real, ".")
	parts[1] = strings.Split(mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["scope"] = readScope + " " + adminScope })), ".")[1]
	tampered := strings.Join(parts, ".")
	// A token carrying its own public key: the server must use the issuer's.
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: forger}, (&jose.SignerOptions{EmbedJWK: true}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := jwt.Signed(sig).Claims(claims(nil)).Serialize()
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		token  string
		want   oauth.Reason // 0: accepted
		sub    string
		client string
		scopes []string
	}{
		{name: "client credentials", token: real, sub: oidctest.ServiceClient, client: oidctest.ServiceClient, scopes: []string{readScope}},
		{name: "authorization code with PKCE", token: as.AuthorizationCode(t, resource, "bob", readScope, adminScope),
			sub: "bob", client: oidctest.AppClient, scopes: []string{readScope, adminScope}},
		{name: "issued for another resource", token: as.ClientCredentials(t, "http://127.0.0.1:8/other", readScope), want: oauth.Audience},
		{name: "minted with the issuer's key", token: mint(t, k1, "at+jwt", claims(nil)), sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "another issuer", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["iss"] = "https://issuer.example" })), want: oauth.Issuer},
		{name: "expired", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() })), want: oauth.Expired},
		{name: "expired within the clock skew", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["exp"] = now.Add(-10 * time.Second).Unix() })),
			sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "not yet valid", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() })), want: oauth.NotYetValid},
		{name: "issued in the future", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["iat"] = now.Add(2 * time.Minute).Unix() })), want: oauth.NotYetValid},
		{name: "signed by another key with the issuer's kid", token: mint(t, forger, "at+jwt", claims(nil)), want: oauth.Signature},
		{name: "claims changed after signing", token: tampered, want: oauth.Signature},
		{name: "signed by a key it embeds (jwk header)", token: embedded, want: oauth.Signature},
		{name: `alg "none"`, token: unsigned(t, map[string]any{"alg": "none", "typ": "at+jwt", "kid": "k1"}, claims(nil)), want: oauth.Algorithm},
		{name: "HS256 keyed with the issuer's public key", token: mint(t, hs256, "at+jwt", claims(nil)), want: oauth.Algorithm},
		{name: "typ JWT, not at+jwt", token: mint(t, k1, "JWT", claims(nil)), want: oauth.TokenType},
		{name: "typ application/at+jwt", token: mint(t, k1, "application/at+jwt", claims(nil)), sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "no kid, the issuer's only key", token: mint(t, noKid, "at+jwt", claims(nil)), sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "unknown kid", token: mint(t, oidctest.NewKey(t, "k9"), "at+jwt", claims(nil)), want: oauth.UnknownKey},
		{name: "no exp", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "exp") })), want: oauth.Claims},
		{name: "no iss", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "iss") })), want: oauth.Claims},
		{name: "no aud", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "aud") })), want: oauth.Audience},
		{name: "aud list naming the resource", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["aud"] = []string{"https://other.example", resource} })),
			sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "aud with a trailing slash", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["aud"] = resource + "/" })),
			sub: "alice", client: "mcp-app", scopes: []string{readScope}},
		{name: "aud of a prefix of the resource", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["aud"] = "http://127.0.0.1:8" })), want: oauth.Audience},
		{name: "scp list", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{readScope, adminScope} })),
			sub: "alice", client: "mcp-app", scopes: []string{readScope, adminScope}},
		{name: "azp for the client", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "client_id"); c["azp"] = "app-2" })),
			sub: "alice", client: "app-2", scopes: []string{readScope}},
		{name: "no sub nor client_id", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { delete(c, "sub"); delete(c, "client_id") })), want: oauth.Claims},
		{name: "bound to a DPoP key", token: mint(t, k1, "at+jwt", claims(func(c map[string]any) { c["cnf"] = map[string]string{"jkt": "abc"} })), want: oauth.Claims},
		{name: "opaque, without introspection", token: "2YotnFZFEjr1zCsicMWpAA", want: oauth.Malformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ti, err := rs.Verify(context.Background(), tt.token, nil)
			if got := reason(t, err); got != tt.want {
				t.Fatalf("Verify: %v; want reason %v", err, tt.want)
			}
			if err != nil {
				if strings.Contains(err.Error(), tt.token) {
					t.Errorf("the error quotes the token: %v", err)
				}
				return
			}
			p, ok := oauth.PrincipalOf(ti)
			if !ok {
				t.Fatalf("no principal in %+v", ti)
			}
			if p.Subject != tt.sub || p.ClientID != tt.client || !slices.Equal(p.Scopes, tt.scopes) || p.Issuer != as.Issuer() || p.Introspected {
				t.Errorf("principal %+v, want subject %q, client %q, scopes %q", p, tt.sub, tt.client, tt.scopes)
			}
			r := &flows.Request{TokenInfo: ti}
			if r.Principal() != tt.sub || r.ClientID() != tt.client || !slices.Equal(ti.Scopes, tt.scopes) || !ti.Expiration.Equal(p.Expiry) {
				t.Errorf("TokenInfo %+v: principal %q, client %q; want %q, %q, scopes %q", ti, r.Principal(), r.ClientID(), tt.sub, tt.client, tt.scopes)
			}
			if p.Expiry.Before(time.Now().Add(-time.Minute)) || p.Expiry.After(time.Now().Add(2*time.Hour)) {
				t.Errorf("expiry %v, want within hours of now", p.Expiry)
			}
			for k, v := range maps.All(ti.Extra) {
				if s, ok := v.(string); ok && strings.Contains(tt.token, s) && len(s) > 20 {
					t.Errorf("TokenInfo.Extra[%q] holds the token", k)
				}
			}
		})
	}
}

// TestTokenTypes checks Config.TokenTypes: an authorization server that
// types its access tokens "JWT" is accepted once the type is allowed.
func TestTokenTypes(t *testing.T) {
	as := authServer.Get(t)
	k1 := as.Keys()[0]
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), TokenTypes: []string{"JWT"}})
	claims := map[string]any{"iss": as.Issuer(), "sub": "alice", "aud": resource, "exp": time.Now().Add(time.Minute).Unix()}
	for typ, want := range map[string]oauth.Reason{"JWT": 0, "jwt": 0, "application/jwt": 0, "at+jwt": oauth.TokenType, "": oauth.TokenType} {
		_, err := rs.Verify(context.Background(), mint(t, k1, typ, claims), nil)
		if got := reason(t, err); got != want {
			t.Errorf("typ %q: %v; want reason %v", typ, err, want)
		}
	}
}
