package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
	"github.com/hookflow/hookflow/stages"
)

// weather is a hookflow server behind the auth plugin and a resource
// server, on a loopback port: the tools whoami (no scope: it answers with
// the caller's principal) and forecast (needs weather.admin). Its
// metadata advertises weather.read only, so that clients step up for
// forecast. Its audit events are kept in memory.
type weather struct {
	url    string // the resource: the MCP endpoint
	rs     *oauth.ResourceServer
	audit  *audit.Plugin
	events *events
	// seen are the principals the beforeExecute hook saw.
	mu   sync.Mutex
	seen []oauth.Principal
	// leaks are the tokens the hook found in a request's headers.
	leaks []string
}

type whoamiOut struct {
	Subject  string   `json:"subject"`
	ClientID string   `json:"client_id"`
	Scopes   []string `json:"scopes"`
}

// serveWeather starts the server; change, when set, edits its resource
// server's configuration, and plugins are attached with the auth and
// audit plugins.
func serveWeather(t *testing.T, as *oidctest.Server, change func(*oauth.Config), plugins ...framework.Plugin) *weather {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	w := &weather{url: "http://" + hs.Listener.Addr().String() + "/mcp", events: &events{}}
	cfg := oauth.Config{Resource: w.url, Issuer: as.Issuer(), ScopesSupported: []string{readScope}, ResourceName: "weather"}
	if change != nil {
		change(&cfg)
	}
	w.rs = newRS(t, cfg)

	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, &framework.Options{Logger: slog.New(slog.DiscardHandler)})
	err := framework.AddTool(srv, framework.Tool[struct{}, struct{}, whoamiOut]{
		Tool: &mcp.Tool{Name: "whoami", Description: "who the caller is"},
		Execute: func(_ struct{}, _ context.Context, req *mcp.CallToolRequest, _ struct{}) (whoamiOut, error) {
			p, ok := oauth.PrincipalOf(req.Extra.TokenInfo)
			if !ok {
				return whoamiOut{}, fmt.Errorf("no principal")
			}
			return whoamiOut{Subject: p.Subject, ClientID: p.ClientID, Scopes: p.Scopes}, nil
		},
	})
	if err == nil {
		err = framework.AddTool(srv, framework.Tool[struct{}, struct{}, struct{}]{
			Tool:   &mcp.Tool{Name: "forecast", Description: "sets the forecast"},
			Scopes: []string{adminScope},
			Execute: func(struct{}, context.Context, *mcp.CallToolRequest, struct{}) (struct{}, error) {
				return struct{}{}, nil
			},
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	// A hook of default priority: it runs after the auth plugin's, sees
	// the principal, and looks for the token where hooks could find it.
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "observe", Fn: func(c *flows.Context) error {
		r := c.Request()
		w.mu.Lock()
		defer w.mu.Unlock()
		if p, ok := oauth.PrincipalOf(r.TokenInfo); ok {
			w.seen = append(w.seen, *p)
		}
		if v := r.Header.Get("Authorization"); v != "" {
			w.leaks = append(w.leaks, v)
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	w.audit = audit.New(audit.Config{Handler: slog.NewJSONHandler(w.events, nil), Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = w.audit.Close(context.Background()) })
	a := auth.New(w.rs.AuthConfig(auth.Config{ScopeChallenge: true, Audit: w.audit, Logger: slog.New(slog.DiscardHandler)}))
	if err := srv.Use(append([]framework.Plugin{a, w.audit}, plugins...)...); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	h, err := a.Handler(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(w.rs.MetadataPath(), w.rs.MetadataHandler())
	mux.Handle("/mcp", h)
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(hs.Close)
	return w
}

// auditEvents flushes the audit plugin and returns its events so far.
func (w *weather) auditEvents(t *testing.T) []audit.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return w.events.decode(t)
}

// events collects the audit plugin's JSON lines.
type events struct{ plugintest.Buffer }

func (e *events) decode(t *testing.T) []audit.Event {
	t.Helper()
	var out []audit.Event
	dec := json.NewDecoder(strings.NewReader(e.String()))
	for dec.More() {
		var ev audit.Event
		if err := dec.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// challenge is a parsed response of the MCP endpoint.
type challenge struct {
	status int
	params map[string]string // of the Bearer challenge
	body   string
}

// challenged posts one JSON-RPC message with the bearer token (none when
// empty) and parses the answer's Bearer challenge.
func challenged(t *testing.T, url, token, body string) challenge {
	t.Helper()
	var o plugintest.HTTPOptions
	if token != "" {
		o.Authorization = "Bearer " + token
	}
	resp := plugintest.Post(t, url, body, &o)
	c := challenge{status: resp.Status, body: string(resp.Body)}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		t.Fatalf("WWW-Authenticate %q: %v", resp.Header.Values("WWW-Authenticate"), err)
	}
	for _, ch := range cs {
		if ch.Scheme == "bearer" {
			c.params = ch.Params
		}
	}
	return c
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func callTool(name string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
}

// TestHTTP checks what an HTTP client sees: the metadata served without a
// token, 401 challenges naming it, the 403 step-up challenge naming the
// missing scope, and 500 (not 401) when the authorization server cannot
// be asked.
func TestHTTP(t *testing.T) {
	as := authServer.Get(t)
	clk := newClock()
	w := serveWeather(t, as, nil)
	oauth.SetClock(w.rs, clk.Now)
	metadataURL := w.rs.MetadataURL()
	if want := strings.Replace(w.url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1); metadataURL != want {
		t.Fatalf("MetadataURL %q, want %q", metadataURL, want)
	}
	read := as.ClientCredentials(t, w.url, readScope)

	t.Run("authorization server unreachable", func(t *testing.T) {
		as.SetJWKS(oidctest.JWKSDown)
		defer as.SetJWKS(oidctest.JWKSUp)
		if c := challenged(t, w.url, read, initialize); c.status != http.StatusInternalServerError || c.params != nil {
			t.Errorf("status %d, challenge %v; want 500 without a challenge: the token may be good", c.status, c.params)
		}
		clk.Advance(oauth.DefaultKeyRefreshInterval)
	})
	t.Run("metadata, without a token", func(t *testing.T) {
		resp, err := http.Get(metadataURL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var md oauthex.ProtectedResourceMetadata
		if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s, %v", metadataURL, resp.Status, err)
		}
		if md.Resource != w.url || !slices.Equal(md.AuthorizationServers, []string{as.Issuer()}) ||
			!slices.Equal(md.ScopesSupported, []string{readScope}) || !slices.Equal(md.BearerMethodsSupported, []string{"header"}) || md.ResourceName != "weather" {
			t.Errorf("metadata %+v, want resource %s, authorization server %s, scopes [%s], header", md, w.url, as.Issuer(), readScope)
		}
	})
	for _, tt := range []struct {
		name, token, body string
		status            int
		params            map[string]string
	}{
		{name: "no token", body: initialize, status: http.StatusUnauthorized,
			params: map[string]string{"scope": readScope, "resource_metadata": metadataURL}},
		{name: "a token for another resource", token: as.ClientCredentials(t, "http://127.0.0.1:8/other", readScope), body: initialize, status: http.StatusUnauthorized,
			params: map[string]string{"error": "invalid_token", "scope": readScope, "resource_metadata": metadataURL}},
		{name: "not a token", token: "garbage", body: initialize, status: http.StatusUnauthorized,
			params: map[string]string{"error": "invalid_token", "scope": readScope, "resource_metadata": metadataURL}},
		{name: "a good token", token: read, body: initialize, status: http.StatusOK},
		{name: "a tool needing a scope the token lacks", token: read, body: callTool("forecast"), status: http.StatusForbidden,
			params: map[string]string{"error": "insufficient_scope", "scope": adminScope, "resource_metadata": metadataURL,
				"error_description": `permission denied: the caller's access token lacks scope 'weather.admin', required by tool 'forecast'`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := challenged(t, w.url, tt.token, tt.body)
			if c.status != tt.status {
				t.Fatalf("status %d, want %d: %s", c.status, tt.status, c.body)
			}
			if len(c.params) != len(tt.params) {
				t.Errorf("challenge %v, want %v", c.params, tt.params)
			}
			for k, v := range tt.params {
				if c.params[k] != v {
					t.Errorf("challenge %s=%q, want %q", k, c.params[k], v)
				}
			}
			if c.status == http.StatusForbidden {
				var msg struct {
					Error struct {
						Code int `json:"code"`
						Data struct {
							Missing []string `json:"missingScopes"`
						} `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(c.body), &msg); err != nil || msg.Error.Code != auth.CodeInsufficientScope || !slices.Equal(msg.Error.Data.Missing, []string{adminScope}) {
					t.Errorf("403 body %s: want a JSON-RPC error naming the missing scope", c.body)
				}
			}
		})
	}
}

// TestMCPClient runs the MCP SDK's own OAuth client against the server:
// from the first 401 it finds the metadata, the authorization server,
// gets a token through authorization code with PKCE and the resource
// indicator, and calls a tool; a tool needing another scope makes it step
// up on the 403 and call again. The principal reaches the tool and the
// hooks, the audit plugin records it, and no hook sees the token.
func TestMCPClient(t *testing.T) {
	as := authServer.Get(t)
	w := serveWeather(t, as, nil)
	ctx := t.Context()
	fetch := as.Fetcher("carol")
	var authorizations int
	handler, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: oidctest.AppClient, Issuer: as.Issuer()},
		RedirectURL:         oidctest.AppRedirectURI,
		AuthorizationCodeFetcher: func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
			authorizations++
			return fetch(ctx, args)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.url, OAuthHandler: handler, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, as.Log())
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	var who whoamiOut
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &who) != nil || who.Subject != "carol" || who.ClientID != oidctest.AppClient || !slices.Equal(who.Scopes, []string{readScope}) {
		t.Errorf("whoami: %+v, want carol through %s with [%s]", res.StructuredContent, oidctest.AppClient, readScope)
	}
	if authorizations != 1 {
		t.Errorf("%d authorizations before the step-up, want 1", authorizations)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast"})
	if err != nil || res.IsError {
		t.Fatalf("forecast (after stepping up): %v %+v", err, res)
	}
	if authorizations != 2 {
		t.Errorf("%d authorizations, want 2: the 403 made the client step up once", authorizations)
	}

	w.mu.Lock()
	seen, leaks := w.seen, w.leaks
	w.mu.Unlock()
	if len(seen) != 2 || seen[0].Subject != "carol" || !slices.Equal(seen[1].Scopes, []string{readScope, adminScope}) {
		t.Errorf("principals seen by the hook: %+v; want carol, then carol with both scopes", seen)
	}
	if len(leaks) > 0 {
		t.Errorf("a hook saw the Authorization header: %d times", len(leaks))
	}

	var outcomes []string
	for _, ev := range w.auditEvents(t) {
		if ev.Principal != "carol" || ev.ClientID != oidctest.AppClient {
			t.Errorf("audit event %+v: want principal carol, client %s", ev, oidctest.AppClient)
		}
		outcomes = append(outcomes, ev.Entity+":"+string(ev.Outcome))
	}
	if want := []string{"whoami:ok", "forecast:blocked", "forecast:ok"}; !slices.Equal(outcomes, want) {
		t.Errorf("audited %v, want %v (the refused call recorded by the scope challenge)", outcomes, want)
	}
}
