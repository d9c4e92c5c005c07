package framework_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

func TestAdminExplain(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, &framework.Options{
		Admin: &framework.AdminOptions{ExplainPath: "/admin/explain"},
	})
	if err := framework.AddTool(srv, framework.Tool[Forecast, ForecastIn, ForecastOut]{
		Tool: &mcp.Tool{Name: "forecast", Description: "Forecast."}, Execute: Forecast.Execute,
	}); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	// What the auth plugin does: verify the bearer token, put its info in
	// the request's context.
	verify := func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		switch tok {
		case "admin":
			return &sdkauth.TokenInfo{UserID: "ops", Scopes: []string{framework.DefaultAdminScope}, Expiration: time.Now().Add(time.Hour)}, nil
		case "user":
			return &sdkauth.TokenInfo{UserID: "ada", Scopes: []string{"read"}, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}
	ts := httptest.NewServer(sdkauth.RequireBearerToken(verify, nil)(h))
	defer ts.Close()
	want, err := srv.Explain(flows.ToolsCallTool, "forecast")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, query, token string
		status                     int
		body                       string
	}{
		{name: "no token", method: "GET", query: "?flow=tools:call-tool&entity=forecast", status: 401},
		{name: "no admin scope", method: "GET", query: "?flow=tools:call-tool&entity=forecast", token: "user", status: 403, body: "need the scope hookflow:admin"},
		{name: "plan", method: "GET", query: "?flow=tools:call-tool&entity=forecast", token: "admin", status: 200, body: want},
		{name: "unknown entity", method: "GET", query: "?flow=tools:call-tool&entity=forcast", token: "admin", status: 404, body: `did you mean "forecast"`},
		{name: "unknown flow", method: "GET", query: "?flow=tools:cal", token: "admin", status: 400, body: "unknown flow"},
		{name: "usage", method: "GET", token: "admin", status: 400, body: "usage: GET /admin/explain?flow="},
		{name: "read-only", method: "POST", query: "?flow=tools:list-tools", token: "admin", status: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+"/admin/explain"+tt.query, nil)
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
				t.Errorf("%s %s: %d %q, want %d with %q", tt.method, tt.query, resp.StatusCode, body, tt.status, tt.body)
			}
		})
	}
	// MCP is still served by the same handler.
	cs, err := mcp.NewClient(clientImpl(), nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: plugintest.BearerClient("user", nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestAdminNeedsAuth(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, &framework.Options{
		Admin: &framework.AdminOptions{ExplainPath: "/explain"},
	})
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/explain?flow=tools:list-tools", nil))
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "behind the auth plugin") {
		t.Errorf("without auth: %d %q, want 401 naming the auth plugin", rec.Code, rec.Body)
	}
	open := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, &framework.Options{
		Admin: &framework.AdminOptions{ExplainPath: "/explain", Unauthenticated: true},
	})
	h, err = open.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/explain?flow=tools:list-tools", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Body.String(), "tools:list-tools (every request)") {
		t.Errorf("unauthenticated admin: %d %q", rec.Code, rec.Body)
	}
}
