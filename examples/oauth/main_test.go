package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestExample runs the example against a real authorization server and
// the MCP SDK's OAuth client: discovery from the 401, a token through
// authorization code with PKCE, whoami, then set_forecast after stepping
// up on the 403; the audit events name the caller.
func TestExample(t *testing.T) {
	as := oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{
		"/mcp": {Scopes: []string{"weather.read", "weather.admin"}},
	}})
	hs := httptest.NewUnstartedServer(nil)
	resource := "http://" + hs.Listener.Addr().String() + "/mcp"
	var events plugintest.Buffer
	s, err := newServer(oauth.Config{Resource: resource, Issuer: as.Issuer()}, slog.New(slog.DiscardHandler), slog.NewJSONHandler(&events, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rs.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = s.handler
	hs.Start()
	defer hs.Close()

	fetch := as.Fetcher("dana")
	authorizations := 0
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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: handler, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	var who WhoAmIOut
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &who) != nil || who.Subject != "dana" || who.ClientID != oidctest.AppClient || !slices.Equal(who.Scopes, []string{"weather.read"}) {
		t.Errorf("whoami: %+v; want dana through %s with weather.read", res.StructuredContent, oidctest.AppClient)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "set_forecast", Arguments: map[string]any{"city": "Paris", "description": "snow"}})
	if err != nil || res.IsError {
		t.Fatalf("set_forecast: %v %+v", err, res)
	}
	if authorizations != 2 {
		t.Errorf("%d authorizations, want 2 (the first, and the step-up for weather.admin)", authorizations)
	}
	s.close()
	var got []string
	dec := json.NewDecoder(strings.NewReader(events.String()))
	for dec.More() {
		var ev struct {
			Entity, Outcome, Principal string
			ClientID                   string `json:"client_id"`
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{ev.Entity, ev.Outcome, ev.Principal, ev.ClientID}, " "))
	}
	want := []string{"whoami ok dana mcp-app", "set_forecast blocked dana mcp-app", "set_forecast ok dana mcp-app"}
	if !slices.Equal(got, want) {
		t.Errorf("audit events %q, want %q", got, want)
	}
}
