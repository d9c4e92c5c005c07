package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// Secret tokens: every one of them is searched for in logs and responses.
const (
	tokNotes    = "tok-notes-4f9a1c2e8b7d6053a1b2"    // notes:read
	tokDeploy   = "tok-deploy-9e8d7c6b5a4f3e2d1c0b"   // deploy:write, notes:read
	tokAdmin    = "tok-admin-11aa22bb33cc44dd55ee"    // admin (not audit:read)
	tokAll      = "tok-all-0f1e2d3c4b5a69788796"      // every scope
	tokExpired  = "tok-expired-aa55bb66cc77dd88ee99"  // expired an hour ago
	tokUnknown  = "tok-unknown-5c4b3a29180716253443"  // the verifier rejects it, quoting it
	tokBroken   = "tok-broken-77665544332211009988"   // the verifier fails, quoting it
	tokNoGlobal = "tok-noglobal-0123456789abcdef0123" // lacks the HTTP-wide scope "mcp"
)

var allTokens = []string{tokNotes, tokDeploy, tokAdmin, tokAll, tokExpired, tokUnknown, tokBroken, tokNoGlobal}

// verifier knows the tokens above. Its errors quote the token, as careless
// verifiers do: the plugin must keep it out of logs and responses.
func verifier(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	exp := time.Now().Add(time.Hour)
	switch token {
	case tokNotes:
		return &sdkauth.TokenInfo{UserID: "ann", Scopes: []string{"mcp", "notes:read"}, Expiration: exp}, nil
	case tokDeploy:
		return &sdkauth.TokenInfo{UserID: "bob", Scopes: []string{"mcp", "notes:read", "deploy:write"}, Expiration: exp}, nil
	case tokAdmin:
		return &sdkauth.TokenInfo{UserID: "cy", Scopes: []string{"mcp", "admin"}, Expiration: exp}, nil
	case tokAll:
		return &sdkauth.TokenInfo{UserID: "root", Scopes: []string{"mcp", "notes:read", "deploy:write", "admin", "audit:read"}, Expiration: exp}, nil
	case tokExpired:
		return &sdkauth.TokenInfo{UserID: "old", Scopes: []string{"mcp", "notes:read"}, Expiration: time.Now().Add(-time.Hour)}, nil
	case tokNoGlobal:
		return &sdkauth.TokenInfo{UserID: "dee", Scopes: []string{"notes:read"}, Expiration: exp}, nil
	case tokBroken:
		return nil, fmt.Errorf("introspection endpoint down while checking %q", token)
	}
	return nil, fmt.Errorf("%w: no such token %s", sdkauth.ErrInvalidToken, token)
}

type empty struct{}

type out struct {
	Tool string `json:"tool"`
}

// tools: public needs nothing; read_notes needs notes:read (its own
// Scopes, as hookgen's scopes= sets them); deploy needs deploy:write (from
// the plugin's ToolScopes); admin needs admin (own) and audit:read (config).
var toolNames = []string{"public", "read_notes", "deploy", "admin"}

func addTools(t testing.TB, r framework.Registrar) {
	t.Helper()
	for _, tc := range []struct {
		name   string
		scopes []string
	}{{"public", nil}, {"read_notes", []string{"notes:read"}}, {"deploy", nil}, {"admin", []string{"admin"}}} {
		name := tc.name
		err := framework.AddTool(r, framework.Tool[struct{}, empty, out]{
			Tool:   &mcp.Tool{Name: name, Description: "test tool " + name},
			Scopes: tc.scopes,
			Execute: func(struct{}, context.Context, *mcp.CallToolRequest, empty) (out, error) {
				return out{Tool: name}, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// baseConfig is the plugin configuration most tests use.
func baseConfig() auth.Config {
	return auth.Config{
		Verifier:            verifier,
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource",
		Scopes:              []string{"mcp"},
		ToolScopes:          map[string][]string{"deploy": {"deploy:write"}, "admin": {"audit:read"}},
	}
}

// challenging is baseConfig with the HTTP 403 scope challenge on.
func challenging() auth.Config {
	c := baseConfig()
	c.ScopeChallenge = true
	return c
}

// newServer returns a server with the test tools and the auth plugin.
func newServer(t testing.TB, cfg auth.Config, logs *plugintest.Buffer) (*framework.Server, *auth.Plugin) {
	t.Helper()
	var opts framework.Options
	if logs != nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	p := auth.New(cfg)
	srv := plugintest.NewServer(t, &plugintest.ServerOptions{Name: "auth-test", Options: &opts,
		Setup: func(s *framework.Server) error { addTools(t, s); return nil }, Plugins: []framework.Plugin{p}})
	return srv, p
}

// connectMemory connects an in-memory client (no token).
func connectMemory(t testing.TB, srv *framework.Server) *mcp.ClientSession {
	return plugintest.ConnectServer(t, srv)
}

// serveHTTP serves srv through the plugin's Handler on an httptest server.
func serveHTTP(t testing.TB, srv *framework.Server, p *auth.Plugin, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	t.Helper()
	h, err := p.Handler(srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// connectHTTP connects a client sending token to ts.
func connectHTTP(t testing.TB, ts *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: plugintest.BearerClient(token, nil), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// listNames returns the names tools/list shows.
func listNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// outcome calls tool and describes what the client saw: "ok", "isError:
// <text>" or "protocol <code>: <message>".
func outcome(cs *mcp.ClientSession, tool string) string {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return fmt.Sprintf("protocol %d: %s", wire.Code, wire.Message)
		}
		return "transport error: " + err.Error()
	}
	if res.IsError {
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				return "isError: " + tc.Text
			}
		}
		return fmt.Sprintf("isError: %#v", res.Content)
	}
	return "ok"
}
