package auth_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// TestStaticTokens401 serves with static tokens only: a request without
// a token, or with an unknown one, gets a 401 whose challenge and body
// tell the client to send a bearer token its operator issued, and that
// there is no OAuth to try; a known token passes; and the start-up
// warning about the missing resource metadata, which OAuth clients need
// and static tokens do not, is not logged.
func TestStaticTokens401(t *testing.T) {
	cfg := auth.Config{Tokens: []auth.Token{{Token: "s3cret-static", User: "ada"}}}
	logs := &plugintest.Buffer{}
	srv, p := newServer(t, cfg, logs)
	ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	for _, tc := range []struct {
		name, authz string
		status      int
		challenge   string
		body        string
	}{
		{"no token", "", 401,
			`Bearer error_description="this server needs a bearer token its operator issued; it offers no OAuth: send Authorization: Bearer <token>"`,
			"this server needs a bearer token its operator issued; it offers no OAuth: send Authorization: Bearer <token>\n"},
		{"unknown token", "Bearer nope", 401,
			`Bearer error="invalid_token", error_description="the bearer token is not one of this server's tokens; it offers no OAuth: send Authorization: Bearer <token> with a token its operator issued"`,
			"the bearer token is not one of this server's tokens; it offers no OAuth: send Authorization: Bearer <token> with a token its operator issued\n"},
		{"known token", "Bearer s3cret-static", 200, "", `"protocolVersion"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := plugintest.Post(t, ts.URL, initBody, withAuth(tc.authz))
			status, challenge, body := answer.Status, answer.Header.Get("WWW-Authenticate"), string(answer.Body)
			if status != tc.status || challenge != tc.challenge || (tc.status == 401 && body != tc.body) || !strings.Contains(body, tc.body) {
				t.Errorf("status %d, WWW-Authenticate %q, body %q\nwant %d, %q, %q", status, challenge, body, tc.status, tc.challenge, tc.body)
			}
		})
	}
	if strings.Contains(logs.String(), "ResourceMetadataURL is not set") {
		t.Errorf("static tokens logged the resource metadata warning:\n%s", logs.String())
	}
}
