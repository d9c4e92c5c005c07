package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// TestConfigValidate: each setting a file can get wrong is reported at
// its path in the file's spelling, with a message the user can act on.
func TestConfigValidate(t *testing.T) {
	t.Setenv("AUTH_TEST_TOKEN", "from-env")
	t.Setenv("AUTH_TEST_SAME", "same")
	for _, tc := range []struct {
		name string
		cfg  auth.Config
		want []string
	}{
		{"valid", auth.Config{
			Tokens:              []auth.Token{{Token: "t1", User: "ann", Scopes: []string{"notes:read"}}, {TokenEnv: "AUTH_TEST_TOKEN", User: "bob"}},
			ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource",
			Scopes:              []string{"mcp"}, ScopesSupported: []string{"mcp", "notes:read"}, ClockSkew: time.Second,
			ToolScopes: map[string][]string{"deploy": {"deploy:write"}}, AllowAnonymous: true, Conceal: true, ScopeChallenge: true,
		}, nil},
		{"token without value", auth.Config{Tokens: []auth.Token{{User: "ann"}}}, []string{"tokens[0]: needs token or token_env"}},
		{"token twice", auth.Config{Tokens: []auth.Token{{Token: "a", TokenEnv: "AUTH_TEST_TOKEN"}}}, []string{"tokens[0]: token and token_env both give the token: keep one"}},
		{"token_env unset", auth.Config{Tokens: []auth.Token{{Token: "a"}, {TokenEnv: "AUTH_TEST_UNSET"}}}, []string{"tokens[1].token_env: environment variable AUTH_TEST_UNSET is not set"}},
		{"same token", auth.Config{Tokens: []auth.Token{{Token: "same"}, {Token: "b"}, {TokenEnv: "AUTH_TEST_SAME"}}}, []string{"tokens[2]: has the same token as tokens[0]"}},
		{"token scope", auth.Config{Tokens: []auth.Token{{Token: "a", Scopes: []string{"ok", "a b"}}}}, []string{`tokens[0].scopes[1]: scope "a b": want printable ASCII without spaces, '"' or '\'`}},
		{"tokens and verifier", auth.Config{Verifier: verifier, Tokens: []auth.Token{{Token: "a"}}}, []string{"tokens: Config.Verifier is set too: keep one"}},
		{"relative metadata URL", auth.Config{ResourceMetadataURL: "/.well-known/x"}, []string{`resource_metadata_url: want an absolute http or https URL, got "/.well-known/x"`}},
		{"metadata URL scheme", auth.Config{ResourceMetadataURL: "ftp://mcp.example.com/x"}, []string{`resource_metadata_url: want an absolute http or https URL, got "ftp://mcp.example.com/x"`}},
		{"quote in metadata URL", auth.Config{ResourceMetadataURL: `https://mcp.example.com/a"b`},
			[]string{`resource_metadata_url: "https://mcp.example.com/a\"b" has a space, '"', '\', control or non-ASCII character, which a WWW-Authenticate challenge cannot carry: percent-encode it`}},
		{"scope", auth.Config{Scopes: []string{""}}, []string{"scopes[0]: a scope is empty"}},
		{"supported scope", auth.Config{ScopesSupported: []string{"ok", `a\b`}}, []string{`scopes_supported[1]: scope "a\\b": want printable ASCII without spaces, '"' or '\'`}},
		{"clock skew", auth.Config{ClockSkew: -time.Second}, []string{"clock_skew: must not be negative, got -1s"}},
		{"tool name", auth.Config{ToolScopes: map[string][]string{"": {"x"}}}, []string{"tool_scopes: a tool name is empty"}},
		{"tool scope", auth.Config{ToolScopes: map[string][]string{"deploy": {"ok", ""}}}, []string{"tool_scopes.deploy[1]: a scope is empty"}},
		{"Go-only policy", auth.Config{Unauthenticated: 7}, []string{": Config.Unauthenticated: unknown policy 7 (want auth.DenyScoped or auth.AllowAll)"}},
		{"several, in order", auth.Config{Tokens: []auth.Token{{}}, ClockSkew: -1}, []string{"tokens[0]: needs token or token_env", "clock_skew: must not be negative, got -1ns"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldLines(t, tc.cfg.Validate())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestTokensFromConfig: the static tokens of a configuration are the
// verifier of an HTTP server, each with its user and scopes (the env
// one read when the plugin is built); any other token gets 401, and
// allow_anonymous opens scoped tools to requests without one.
func TestTokensFromConfig(t *testing.T) {
	t.Setenv("AUTH_TEST_DEPLOY", "tok-from-env-3c1d")
	cfg := auth.Config{
		Tokens: []auth.Token{
			{Token: "tok-notes-static-9a8b", User: "ann", Scopes: []string{"notes:read"}},
			{TokenEnv: "AUTH_TEST_DEPLOY", User: "bob", Scopes: []string{"notes:read", "deploy:write"}},
		},
		ToolScopes: map[string][]string{"deploy": {"deploy:write"}},
	}
	srv, p := newServer(t, cfg, nil)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ts := serveHTTP(t, srv, p, nil)

	ann := connectHTTP(t, ts, "tok-notes-static-9a8b")
	if got := outcome(ann, "read_notes"); got != "ok" {
		t.Errorf("ann read_notes: %s", got)
	}
	if got := outcome(ann, "deploy"); !strings.Contains(got, `lacks scope "deploy:write"`) {
		t.Errorf("ann deploy: %s, want the missing scope", got)
	}
	bob := connectHTTP(t, ts, "tok-from-env-3c1d")
	if got := outcome(bob, "deploy"); got != "ok" {
		t.Errorf("bob deploy: %s", got)
	}
	for _, token := range []string{"tok-unknown", "AUTH_TEST_DEPLOY", "tok-notes-static-9a8"} {
		if status := plugintest.Post(t, ts.URL, initBody, withAuth("Bearer "+token)).Status; status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", token, status)
		}
	}

	t.Run("allow_anonymous", func(t *testing.T) {
		for _, tc := range []struct {
			anonymous bool
			want      string
		}{{false, "permission denied"}, {true, "ok"}} {
			srv, _ := newServer(t, auth.Config{AllowAnonymous: tc.anonymous, ToolScopes: cfg.ToolScopes}, nil)
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			if got := outcome(connectMemory(t, srv), "deploy"); !strings.Contains(got, tc.want) {
				t.Errorf("allow_anonymous %v: deploy without a token: %s, want %q", tc.anonymous, got, tc.want)
			}
		}
	})
}
