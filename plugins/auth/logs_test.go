package auth_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
)

// A verifier's error text can quote the token in any encoding (%q escapes
// its trailing bytes, %x hex-encodes it): the plugin never logs that text,
// so no part of the secret reaches the logs, at any level.
func TestVerifierErrorTextIsNotLogged(t *testing.T) {
	const secret = "Zq7xK2mP9vL4wR8tN3bH6jF1cD5gS0yA" // 32 characters
	token := secret + "\xc3\xa9\xc3\xa9"              // with trailing bytes
	for _, tc := range []struct {
		name   string
		status int
		err    func(token string) error
	}{
		{"invalid, %q", 401, func(tok string) error { return fmt.Errorf("%w: unknown token %q", sdkauth.ErrInvalidToken, tok) }},
		{"invalid, %+q", 401, func(tok string) error { return fmt.Errorf("%w: unknown token %+q", sdkauth.ErrInvalidToken, tok) }},
		{"oauth, %x", 400, func(tok string) error { return fmt.Errorf("%w: introspection refused %x", sdkauth.ErrOAuth, tok) }},
		{"failure, %q", 500, func(tok string) error { return fmt.Errorf("verifier down while checking %q", tok) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &plugintest.Buffer{}
			cfg := baseConfig()
			cfg.Verifier = func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
				return nil, tc.err(tok)
			}
			srv, p := newServer(t, cfg, logs)
			ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			answer := plugintest.Post(t, ts.URL, initBody, withAuth("Bearer "+token))
			status, body := answer.Status, string(answer.Body)
			if status != tc.status {
				t.Errorf("status %d, want %d (body %q)", status, tc.status, body)
			}
			out := logs.String()
			if !strings.Contains(out, "auth: token") {
				t.Fatalf("the rejection was not logged:\n%s", out)
			}
			for _, s := range []string{out, body} {
				for i := 0; i+8 <= len(secret); i++ {
					if part := secret[i : i+8]; strings.Contains(s, part) || strings.Contains(s, fmt.Sprintf("%x", part)) {
						t.Fatalf("%q (part of the token) reached the logs or the response:\n%s", part, s)
					}
				}
			}
		})
	}
}

// loggable is a verifier error that says what may be logged.
type loggable struct{ token string }

func (e loggable) Error() string        { return "token " + e.token + " is revoked" }
func (e loggable) Unwrap() error        { return sdkauth.ErrInvalidToken }
func (e loggable) LogValue() slog.Value { return slog.StringValue("revoked") }

// A verifier whose error implements slog.LogValuer gets that value logged.
func TestVerifierLogValueIsLogged(t *testing.T) {
	logs := &plugintest.Buffer{}
	cfg := baseConfig()
	cfg.Verifier = func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		return nil, loggable{tok}
	}
	srv, p := newServer(t, cfg, logs)
	ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	plugintest.Post(t, ts.URL, initBody, withAuth("Bearer "+tokUnknown))
	out := logs.String()
	if !strings.Contains(out, "reason=revoked") || !strings.Contains(out, "token_sha256=") || strings.Contains(out, tokUnknown) {
		t.Errorf("log %q: want the LogValue and the fingerprint, not the token", out)
	}
}
