package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/stages"
)

const metadataURL = "https://mcp.example.com/.well-known/oauth-protected-resource"

// withAuth is the options of a request with the Authorization value authz
// ("" for none), protocol 2025-11-25.
func withAuth(authz string) *plugintest.HTTPOptions {
	return &plugintest.HTTPOptions{ProtocolVersion: "2025-11-25", Authorization: authz}
}

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestHTTPStatus checks the status codes and challenges HTTP clients get.
func TestHTTPStatus(t *testing.T) {
	rm := `resource_metadata="` + metadataURL + `"`
	for _, tc := range []struct {
		name       string
		mutate     func(*auth.Config)
		authz      string
		body       string
		status     int
		challenge  string // exact WWW-Authenticate, or prefix when it ends in "…"
		bodyHas    string
		notChallge bool
	}{
		{name: "no token", body: initBody, status: 401, challenge: `Bearer scope="mcp", ` + rm, bodyHas: "no bearer token"},
		{name: "not bearer", authz: "Basic dXNlcjpwdw==", body: initBody, status: 401, challenge: `Bearer scope="mcp", ` + rm},
		{name: "unknown token", authz: "Bearer " + tokUnknown, body: initBody, status: 401, challenge: `Bearer error="invalid_token", scope="mcp", ` + rm, bodyHas: "invalid token"},
		{name: "expired token", authz: "Bearer " + tokExpired, body: initBody, status: 401, challenge: `Bearer error="invalid_token", scope="mcp", ` + rm, bodyHas: "token expired"},
		{name: "verifier failure", authz: "Bearer " + tokBroken, body: initBody, status: 500, bodyHas: "token verification failed"},
		{name: "lacks the HTTP-wide scope", authz: "Bearer " + tokNoGlobal, body: initBody, status: 403, challenge: `Bearer error="insufficient_scope", scope="mcp", ` + rm},
		{name: "no resource metadata", mutate: func(c *auth.Config) { c.ResourceMetadataURL = ""; c.Scopes = nil }, body: initBody, status: 401, challenge: "Bearer"},
		{
			name: "call lacking a tool scope", mutate: func(c *auth.Config) { c.ScopeChallenge = true }, authz: "Bearer " + tokNotes, body: callBody("deploy"), status: 403,
			challenge: `Bearer error="insufficient_scope", scope="deploy:write", ` + rm + `, error_description="permission denied: the caller's access token lacks scope 'deploy:write', required by tool 'deploy'"`,
			bodyHas:   `{"error":{"code":-32003,"data":{"missingScopes":["deploy:write"],"requiredScopes":["deploy:write"],"tool":"deploy"},"message":"permission denied: the caller's access token lacks scope \"deploy:write\", required by tool \"deploy\""},"id":7,"jsonrpc":"2.0"}`,
		},
		{
			name: "challenge lists every required scope", mutate: func(c *auth.Config) { c.ScopeChallenge = true }, authz: "Bearer " + tokAdmin, body: callBody("admin"), status: 403,
			challenge: `Bearer error="insufficient_scope", scope="audit:read admin", …`,
		},
		{name: "allowed call", authz: "Bearer " + tokNotes, body: callBody("read_notes"), status: 200, bodyHas: `"structuredContent":{"tool":"read_notes"}`},
		{name: "unknown tool is the SDK's business", authz: "Bearer " + tokNotes, body: callBody("nope"), status: 200, bodyHas: `unknown tool`},
		{name: "batch is checked in-band", mutate: func(c *auth.Config) { c.ScopeChallenge = true }, authz: "Bearer " + tokNotes, body: "[" + callBody("deploy") + "]", notChallge: true},
		{name: "challenge off by default", authz: "Bearer " + tokNotes, body: callBody("deploy"), status: 200, bodyHas: `lacks scope \"deploy:write\"`},
		{name: "concealed", mutate: func(c *auth.Config) { c.Conceal = true; c.ScopeChallenge = true }, authz: "Bearer " + tokNotes, body: callBody("deploy"), status: 200, bodyHas: `unknown tool \"deploy\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			if tc.mutate != nil {
				tc.mutate(&cfg)
			}
			srv, p := newServer(t, cfg, nil)
			ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			answer := plugintest.Post(t, ts.URL, tc.body, withAuth(tc.authz))
			status, challenge, body := answer.Status, answer.Header.Get("WWW-Authenticate"), string(answer.Body)
			if tc.notChallge {
				if status == 403 || status == 401 {
					t.Errorf("status %d, want no challenge (body %s)", status, body)
				}
				return
			}
			if status != tc.status {
				t.Errorf("status = %d, want %d (body %q)", status, tc.status, body)
			}
			if prefix, ok := strings.CutSuffix(tc.challenge, "…"); ok {
				if !strings.HasPrefix(challenge, prefix) {
					t.Errorf("WWW-Authenticate = %q, want prefix %q", challenge, prefix)
				}
			} else if challenge != tc.challenge {
				t.Errorf("WWW-Authenticate:\n got %q\nwant %q", challenge, tc.challenge)
			}
			if !strings.Contains(body, tc.bodyHas) {
				t.Errorf("body %q does not contain %q", body, tc.bodyHas)
			}
			if tc.status == 403 && strings.HasPrefix(tc.body, `{"jsonrpc":"2.0","id":7`) {
				var msg struct {
					ID    int `json:"id"`
					Error struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.ID != 7 || msg.Error.Code != auth.CodeInsufficientScope {
					t.Errorf("403 body is not the JSON-RPC error for id 7: %s (%v)", body, err)
				}
			}
		})
	}
}

// TestNoTokenLeaks drives every path a token takes — accepted, rejected,
// verifier failure, denied calls, 403 challenges — with logging at debug
// level and a hook that logs the request headers and token info as an
// audit plugin might, and checks that no token appears in the logs or in
// any response.
func TestNoTokenLeaks(t *testing.T) {
	logs := &plugintest.Buffer{}
	srv, p := newServer(t, challenging(), logs)
	var mu sync.Mutex
	var sawAuthorization []string
	err := srv.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "nosy", Fn: func(c *flows.Context) error {
			r := c.Request()
			mu.Lock()
			sawAuthorization = append(sawAuthorization, r.Header.Values("Authorization")...)
			mu.Unlock()
			c.Logger().Info("nosy audit", slog.Any("headers", r.Header), slog.Any("token", r.TokenInfo), slog.String("outcome", flows.Reason(c.Err())))
			return nil
		}},
		flows.Hook{Flow: flows.ToolsListTools, Stage: stages.Finally, Name: "nosy", Fn: func(c *flows.Context) error {
			c.Logger().Info("nosy list", slog.Any("headers", c.Request().Header))
			return nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, stateless := range []bool{false, true} {
		ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: stateless})
		var seen []string
		for _, tok := range []string{tokNotes, tokDeploy, tokAdmin, tokAll} {
			cs := connectHTTP(t, ts, tok)
			listNames(t, cs)
			for _, name := range toolNames {
				seen = append(seen, outcome(cs, name))
			}
		}
		for _, tok := range allTokens {
			for _, body := range []string{initBody, callBody("deploy"), callBody("public")} {
				answer := plugintest.Post(t, ts.URL, body, withAuth("Bearer "+tok))
				challenge, resp := answer.Header.Get("WWW-Authenticate"), string(answer.Body)
				seen = append(seen, challenge, resp)
			}
		}
		for _, s := range seen {
			for _, tok := range allTokens {
				if strings.Contains(s, tok) || strings.Contains(s, tok[:len(tok)/2]) {
					t.Errorf("a response contains token %s: %s", tok, s)
				}
			}
		}
	}
	out := logs.String()
	if !strings.Contains(out, "nosy audit") || !strings.Contains(out, "auth: token rejected") || !strings.Contains(out, "auth: token verification failed") {
		t.Fatalf("the test did not exercise the logging paths:\n%s", out)
	}
	for _, tok := range allTokens {
		for _, part := range []string{tok, tok[:len(tok)/2], tok[len(tok)/2:]} {
			if strings.Contains(out, part) {
				t.Errorf("the logs contain (part of) token %s", tok)
			}
		}
	}
	if strings.Contains(strings.ToLower(out), "authorization") {
		t.Errorf("the logs mention an Authorization header")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sawAuthorization) > 0 {
		t.Errorf("hooks saw Authorization headers: %v", sawAuthorization)
	}
}

// TestSessionUserBinding: the SDK binds a stateful session to the token's
// user; the plugin keeps that working (it strips the header, not the
// TokenInfo).
func TestSessionUserBinding(t *testing.T) {
	srv, p := newServer(t, baseConfig(), nil)
	ts := serveHTTP(t, srv, p, nil)
	cs := connectHTTP(t, ts, tokNotes)
	sid := cs.ID()
	if sid == "" {
		t.Fatal("no session ID")
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL, strings.NewReader(callBody("public")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+tokDeploy) // another user
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("another user's token on the session: status %d, want 403", resp.StatusCode)
	}
	if got := outcome(cs, "public"); got != "ok" {
		t.Errorf("owner's call = %s", got)
	}
	if got := listNames(t, cs); !slices.Equal(got, []string{"public", "read_notes"}) {
		t.Errorf("tools/list = %v", got)
	}
}

// bearerParams returns the parameters of the Bearer challenge of the
// WWW-Authenticate header values, parsed; nil when there is none. It
// fails the test when a value is not RFC 6750 §3's: a quoted string of
// printable ASCII without '"' or '\' (which leaves nothing to escape).
func bearerParams(t *testing.T, values []string) map[string]string {
	t.Helper()
	for _, v := range values {
		if strings.ContainsFunc(v, func(r rune) bool { return r == '\\' || r < 0x20 || r > 0x7e }) {
			t.Errorf("WWW-Authenticate %q: RFC 6750 values hold no backslash and only printable ASCII", v)
		}
	}
	cs, err := oauthex.ParseWWWAuthenticate(values)
	if err != nil {
		t.Fatalf("WWW-Authenticate %q: %v", values, err)
	}
	for _, c := range cs {
		if c.Scheme == "bearer" {
			if c.Params == nil {
				return map[string]string{}
			}
			return c.Params
		}
	}
	return nil
}

// TestChallengeScope checks the scope parameter of the challenges: a 401
// names the scopes every request needs (Config.Scopes), then those of the
// protected resource metadata (Config.ScopesSupported), which MCP clients
// would otherwise never read once a 401 names a scope; a 403 names what
// is missing. Each header is parsed, and its values must be RFC 6750's.
func TestChallengeScope(t *testing.T) {
	for _, tc := range []struct {
		name            string
		scopes, support []string
		authz, body     string
		status          int
		want            map[string]string
	}{
		{name: "no token: the supported scopes", support: []string{"notes:read"}, body: initBody, status: 401,
			want: map[string]string{"scope": "notes:read", "resource_metadata": metadataURL}},
		{name: "no token: the required scopes, then the supported ones", scopes: []string{"mcp"}, support: []string{"notes:read", "mcp"}, body: initBody, status: 401,
			want: map[string]string{"scope": "mcp notes:read", "resource_metadata": metadataURL}},
		{name: "bad token", scopes: []string{"mcp"}, support: []string{"notes:read"}, authz: "Bearer " + tokUnknown, body: initBody, status: 401,
			want: map[string]string{"error": "invalid_token", "scope": "mcp notes:read", "resource_metadata": metadataURL}},
		{name: "expired token", support: []string{"notes:read"}, authz: "Bearer " + tokExpired, body: callBody("deploy"), status: 401,
			want: map[string]string{"error": "invalid_token", "scope": "notes:read", "resource_metadata": metadataURL}},
		{name: "no scopes known: no scope parameter", body: initBody, status: 401,
			want: map[string]string{"resource_metadata": metadataURL}},
		{name: "403 of the HTTP-wide scope: that scope only", scopes: []string{"mcp"}, support: []string{"notes:read"}, authz: "Bearer " + tokNoGlobal, body: initBody, status: 403,
			want: map[string]string{"error": "insufficient_scope", "scope": "mcp", "resource_metadata": metadataURL}},
		{name: "403 step-up: the tool's scopes, a description without quotes", support: []string{"notes:read"}, authz: "Bearer " + tokNotes, body: callBody("deploy"), status: 403,
			want: map[string]string{"error": "insufficient_scope", "scope": "deploy:write", "resource_metadata": metadataURL,
				"error_description": "permission denied: the caller's access token lacks scope 'deploy:write', required by tool 'deploy'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := challenging()
			cfg.Scopes, cfg.ScopesSupported = tc.scopes, tc.support
			srv, p := newServer(t, cfg, nil)
			ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.authz != "" {
				req.Header.Set("Authorization", tc.authz)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := bearerParams(t, resp.Header.Values("WWW-Authenticate")); !maps.Equal(got, tc.want) {
				t.Errorf("Bearer challenge %v, want %v", got, tc.want)
			}
		})
	}
}
