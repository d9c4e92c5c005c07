package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

type deployIn struct {
	Service string `json:"service"`
}

type deployOut struct {
	Deployed string `json:"deployed"`
}

func deploy(_ context.Context, _ *mcp.CallToolRequest, in deployIn) (deployOut, error) {
	return deployOut{Deployed: in.Service}, nil
}

// A stdio or in-memory client has no token: with the default policy it
// neither sees nor may call a tool that requires a scope.
func ExampleNew() {
	srv := framework.NewServer(&mcp.Implementation{Name: "ops", Version: "1.0.0"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "deploy", Description: "Deploys a service."}, deploy)
	_ = srv.Use(auth.New(auth.Config{
		ToolScopes: map[string][]string{"deploy": {"deploy:write"}},
	}))

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, _ := cs.ListTools(ctx, nil)
	fmt.Println("tools:", len(list.Tools))
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// tools: 0
	// true permission denied: tool "deploy" requires an access token with scope "deploy:write"; this request has none
}

// Over HTTP, Handler puts the SDK's bearer-token middleware in front of the
// server: the verifier turns a token into scopes and a user.
func ExamplePlugin_Handler() {
	verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		switch token {
		case "reader-token":
			return &sdkauth.TokenInfo{UserID: "ann", Scopes: []string{"notes:read"}, Expiration: time.Now().Add(time.Hour)}, nil
		case "deployer-token":
			return &sdkauth.TokenInfo{UserID: "bob", Scopes: []string{"deploy:write"}, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "ops", Version: "1.0.0"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "deploy", Description: "Deploys a service."}, deploy)
	plugin := auth.New(auth.Config{
		Verifier:            verify,
		ResourceMetadataURL: "https://ops.example.com/.well-known/oauth-protected-resource",
		ToolScopes:          map[string][]string{"deploy": {"deploy:write"}},
	})
	_ = srv.Use(plugin)
	h, err := plugin.Handler(srv, nil)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	// Without a token: 401 and a challenge pointing at the metadata.
	resp, _ := http.Post(ts.URL, "application/json", nil)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))

	// With the deployer's token, the call goes through.
	ctx := context.Background()
	client := plugintest.BearerClient("deployer-token", nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: client}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 401 Bearer resource_metadata="https://ops.example.com/.well-known/oauth-protected-resource"
	// {"deployed":"web"}
}
