package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/hookflow/hookflow/internal/oidctest"
)

// TestGatewayOAuthFromFile runs the gateway binary configured only from
// its file as an OAuth protected resource of a real authorization server:
// a token the server issued for the gateway passes; a forged, an expired,
// a wrong-audience and an oversized one get 401 naming the protected
// resource metadata, which the gateway serves without a token; and the
// console on the MCP port opens to a token with its scope only.
func TestGatewayOAuthFromFile(t *testing.T) {
	as := oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{
		"/mcp":   {Scopes: []string{"tools.read", "hookflow:console"}, TTL: time.Hour},
		"/other": {Scopes: []string{"tools.read"}, TTL: time.Hour},
	}})
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	addr := freeAddr(t)
	resource := "http://" + addr + "/mcp"
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := "serve: {http: '" + addr + "', health: /health}\n" +
		"upstreams:\n  - {name: up, url: '" + upURL + "'}\n" +
		"plugins:\n  auth:\n    oauth:\n      resource: " + resource + "\n      issuer: " + as.Issuer() +
		"\n      scopes_supported: [tools.read]\n      max_token_bytes: 16384\n  console: {}\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	startGateway(t, hookflow, nil, "-config", config)
	metadataURL := "http://" + addr + "/.well-known/oauth-protected-resource/mcp"

	t.Run("metadata", func(t *testing.T) {
		code, body := get(t, metadataURL)
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		if err := json.Unmarshal([]byte(body), &md); err != nil || code != http.StatusOK {
			t.Fatalf("GET %s: %d %q %v", metadataURL, code, body, err)
		}
		if md.Resource != resource || !slices.Equal(md.AuthorizationServers, []string{as.Issuer()}) || !slices.Equal(md.ScopesSupported, []string{"tools.read"}) {
			t.Errorf("metadata %+v, want resource %s, authorization server %s, scopes [tools.read]", md, resource, as.Issuer())
		}
	})

	testConsoleBehindAuth(t, as, addr, resource, metadataURL)

	signer := as.Keys()[0]
	now := time.Now()
	claims := func(exp time.Time) map[string]any {
		return map[string]any{"iss": as.Issuer(), "sub": "mallory", "aud": resource, "client_id": "x", "scope": "tools.read",
			"iat": now.Add(-2 * time.Hour).Unix(), "exp": exp.Unix()}
	}
	oversized := claims(now.Add(time.Hour))
	oversized["pad"] = strings.Repeat("p", 16<<10)
	for _, tc := range []struct {
		name, token string
		code        int
	}{
		{"issued for the gateway", as.ClientCredentials(t, resource, "tools.read"), http.StatusOK},
		{"no token", "", http.StatusUnauthorized},
		{"issued for another resource", as.ClientCredentials(t, "http://127.0.0.1:8/other", "tools.read"), http.StatusUnauthorized},
		{"forged: signed by another key of the same kid", signJWT(t, oidctest.NewKey(t, signer.KeyID), claims(now.Add(time.Hour))), http.StatusUnauthorized},
		{"expired", signJWT(t, signer, claims(now.Add(-time.Hour))), http.StatusUnauthorized},
		{"over max_token_bytes, though well signed", signJWT(t, signer, oversized), http.StatusUnauthorized},
		{"well signed, for the gateway (what the two before would be)", signJWT(t, signer, claims(now.Add(time.Hour))), http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, challenge := initializeWith(t, resource, tc.token)
			if code != tc.code {
				t.Fatalf("status %d, want %d (WWW-Authenticate %q)", code, tc.code, challenge)
			}
			if want := `resource_metadata="` + metadataURL + `"`; code == http.StatusUnauthorized && !strings.Contains(challenge, want) {
				t.Errorf("WWW-Authenticate %q, want it to hold %s", challenge, want)
			}
		})
	}
}

// TestGatewayOAuthFromFile's console: served under /console on the MCP
// listener behind the auth plugin, it opens to a token with the scope
// hookflow:console and to no other.
func testConsoleBehindAuth(t *testing.T, as *oidctest.Server, addr, resource, metadataURL string) {
	for _, tc := range []struct {
		name, token string
		code        int
		challenge   string
	}{
		{"a token with hookflow:console", as.ClientCredentials(t, resource, "hookflow:console"), http.StatusOK, ""},
		{"a token without it", as.ClientCredentials(t, resource, "tools.read"), http.StatusForbidden, `scope="hookflow:console"`},
		{"no token", "", http.StatusUnauthorized, `resource_metadata="` + metadataURL + `"`},
		{"a token for another resource", as.ClientCredentials(t, "http://127.0.0.1:8/other", "tools.read"), http.StatusUnauthorized, `error="invalid_token"`},
	} {
		t.Run("console, "+tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/console", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.code || !strings.Contains(res.Header.Get("WWW-Authenticate"), tc.challenge) {
				t.Fatalf("GET /console: %d, WWW-Authenticate %q; want %d with %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), tc.code, tc.challenge)
			}
			if tc.code == http.StatusOK && !strings.Contains(string(body), "<html") {
				t.Errorf("GET /console: not a page:\n%.300s", body)
			}
		})
	}
}

// freeAddr returns a loopback address with a port nothing listens on:
// the gateway's resource names its port before it listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// signJWT signs claims with key as an RFC 9068 access token.
func signJWT(t *testing.T, key jose.JSONWebKey, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key.Key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", key.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// initializeWith posts an MCP initialize request to url with token as
// its bearer token ("" for none), and returns the status and the
// WWW-Authenticate challenge.
func initializeWith(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}
