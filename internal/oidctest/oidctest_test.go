package oidctest_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/oidctest"
)

// jwtParts decodes a JWT's header and claims, without verifying it.
func jwtParts(t *testing.T, tok string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS compact serialization: %d parts", len(parts))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// TestTokens checks that the server issues what the package says: RFC
// 9068 JWTs for the named resource through both grants, signed by the
// first key, and opaque tokens for opaque resources.
func TestTokens(t *testing.T) {
	s := oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{
		"/mcp":    {Scopes: []string{"read", "write"}},
		"/opaque": {Scopes: []string{"read"}, Format: oidctest.Opaque},
	}})
	const resource = "http://127.0.0.1:1234/mcp"
	for _, tt := range []struct {
		name, token, sub, client, scope string
	}{
		{"client credentials", s.ClientCredentials(t, resource, "read"), oidctest.ServiceClient, oidctest.ServiceClient, "read"},
		{"authorization code", s.AuthorizationCode(t, resource, "bob", "read", "write"), "bob", oidctest.AppClient, "read write"},
	} {
		h, c := jwtParts(t, tt.token)
		if h["typ"] != "at+jwt" || h["alg"] != "ES256" || h["kid"] != "k1" {
			t.Errorf("%s: header %v, want an ES256 at+jwt of key k1", tt.name, h)
		}
		if c["iss"] != s.Issuer() || c["aud"] != resource || c["sub"] != tt.sub || c["client_id"] != tt.client || c["scope"] != tt.scope {
			t.Errorf("%s: claims %v, want iss %s, aud %s, sub %s, client_id %s, scope %q", tt.name, c, s.Issuer(), resource, tt.sub, tt.client, tt.scope)
		}
	}
	if tok := s.ClientCredentials(t, "http://127.0.0.1:1/opaque", "read"); strings.Count(tok, ".") != 0 {
		t.Errorf("opaque resource: token %q looks structured", tok)
	}
}
