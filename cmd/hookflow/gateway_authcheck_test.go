package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayCheckAuthSection runs -check on auth sections: an inline
// static token still works but is warned about at its file:line:col,
// token_env is not; each mistake of an oauth section is an error at its
// key.
func TestGatewayCheckAuthSection(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_STATIC_TOKEN", "a-static-token")
	const head = "upstreams:\n  - {name: a, command: [go, version]}\nplugins:\n  auth:\n"
	for _, tc := range []struct {
		name, auth string
		code       int
		want, not  []string
	}{
		{"inline token", "    tokens:\n      - {token: t1, user: ada}\n", exitOK,
			[]string{"hookflow gateway: warning: @:6:10: plugins.auth.tokens[0].token is deprecated: a token does not belong in the configuration file: put it in an environment variable and name that with token_env", "@: ok"}, nil},
		{"token_env", "    tokens:\n      - {token_env: HOOKFLOW_TEST_STATIC_TOKEN, user: ada}\n", exitOK,
			[]string{"@: ok"}, []string{"warning"}},
		{"oauth", "    scopes: [mcp]\n    oauth:\n      resource: http://127.0.0.1:8080/mcp\n      issuer: https://auth.example.com\n" +
			"      algorithms: [ES256]\n      clock_skew: 10s\n      max_token_bytes: 8192\n      jwks_url: https://auth.example.com/jwks\n" +
			"      introspection: {client_id: gw, client_secret_env: HOOKFLOW_TEST_STATIC_TOKEN, auth: client_secret_post}\n", exitOK,
			[]string{"@: ok"}, []string{"warning"}},
		{"oauth values", "    oauth:\n      resource: http://mcp.example.com/mcp\n      issuer: auth.example.com\n      algorithms: [ES256, none]\n", exitFailed, []string{
			"@:6:17: auth oauth.resource: \"http://mcp.example.com/mcp\": http is allowed on loopback hosts only",
			"@:7:15: auth oauth.issuer: \"auth.example.com\" is not an absolute URL",
			"@:8:27: auth oauth.algorithms[1]: \"none\" is never accepted",
		}, nil},
		{"oauth keys", "    oauth:\n      clock_skew: soon\n      jwks_uri: https://auth.example.com/jwks\n      introspection: {auth: basic}\n", exitFailed, []string{
			"@:6:19: want a duration such as 30s or 1m, got \"soon\"",
			`@:7:7: unknown key "jwks_uri" in oauth (did you mean "jwks_url"?)`,
			`@:8:29: want client_secret_basic or client_secret_post, got "basic"`,
		}, nil},
		{"oauth secrets", "    oauth:\n      resource: http://127.0.0.1:8080/mcp\n      issuer: https://auth.example.com\n" +
			"      introspection:\n        client_id: gw\n        client_secret: s3cret\n", exitFailed, []string{
			"@:10:24: a client secret does not belong in the configuration file: put it in an environment variable and name that with client_secret_env",
		}, []string{"s3cret"}},
		{"oauth secret not set", "    oauth:\n      resource: http://127.0.0.1:8080/mcp\n      issuer: https://auth.example.com\n" +
			"      introspection: {client_id: gw, client_secret_env: HOOKFLOW_TEST_UNSET_SECRET}\n", exitFailed, []string{
			"@:8:57: environment variable HOOKFLOW_TEST_UNSET_SECRET is not set",
		}, nil},
		{"oauth beside the keys it sets", "    tokens: [{token_env: HOOKFLOW_TEST_STATIC_TOKEN}]\n    resource_metadata_url: https://gw.example/.well-known/oauth-protected-resource\n" +
			"    oauth: {resource: 'http://127.0.0.1:8080/mcp', issuer: 'https://auth.example.com'}\n", exitFailed, []string{
			"@:5:13: auth tokens: oauth checks the bearer tokens: give tokens or oauth, not both",
			"@:6:28: auth resource_metadata_url: oauth serves the protected resource metadata",
		}, nil},
		{"console behind oauth", "    oauth: {resource: 'http://127.0.0.1:8080/mcp', issuer: 'https://auth.example.com'}\n  console: {scope: ops:console}\n", exitOK,
			[]string{"@: ok"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "g.yaml")
			if err := os.WriteFile(file, []byte(head+tc.auth), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run([]string{"gateway", "-config", file, "-check"}, stdio{out: &out, err: &errb})
			got := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, got)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "@", file); !strings.Contains(got, w) {
					t.Errorf("output:\n%s\nwant it to hold %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("output:\n%s\nholds %q", got, n)
				}
			}
		})
	}
}

// TestGatewayCheckConsoleWithoutAuth checks that -check refuses a console
// without an addr of its own when no auth plugin can stand in front of
// it on the MCP listener, and accepts it over stdio, where it is not
// served.
func TestGatewayCheckConsoleWithoutAuth(t *testing.T) {
	for _, tc := range []struct {
		serve string
		code  int
		want  string
	}{
		{"serve: {http: '127.0.0.1:0'}\n", exitFailed, "hookflow gateway: console: no listener of its own (addr), and no auth plugin to serve its pages behind on the MCP listener: configure plugins.auth, or give console an addr"},
		{"serve: {stdio: true}\n", exitOK, ": ok"},
	} {
		file := filepath.Join(t.TempDir(), "g.yaml")
		if err := os.WriteFile(file, []byte(tc.serve+"upstreams:\n  - {name: a, command: [go, version]}\nplugins:\n  console: {}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run([]string{"gateway", "-config", file, "-check"}, stdio{out: &out, err: &errb})
		if got := out.String() + errb.String(); code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%s: exit %d, want %d:\n%s\nwant it to hold %q", strings.TrimSpace(tc.serve), code, tc.code, got, tc.want)
		}
	}
}
