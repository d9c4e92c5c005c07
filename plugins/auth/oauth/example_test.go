package oauth_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// Example serves a server as an OAuth resource server: the MCP endpoint
// behind the auth plugin, the protected resource metadata beside it. A
// client without a token learns from the 401 the scopes to ask for and
// where the metadata is, and from the metadata which authorization server
// to ask for a token.
func Example() {
	rs, err := oauth.New(oauth.Config{
		Resource:        "https://mcp.example.com/mcp",
		Issuer:          "https://auth.example.com",
		ScopesSupported: []string{"weather.read"},
	})
	if err != nil {
		panic(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, &framework.Options{Logger: quiet})
	a := auth.New(rs.AuthConfig(auth.Config{ScopeChallenge: true, Logger: quiet}))
	if err := srv.Use(a); err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	h, err := a.Handler(srv, nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.MetadataHandler()) // outside the auth middleware
	mux.Handle("/mcp", h)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))

	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, rs.MetadataURL(), nil))
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	// Output:
	// 401 Bearer scope="weather.read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["weather.read"],"bearer_methods_supported":["header"]}
}
