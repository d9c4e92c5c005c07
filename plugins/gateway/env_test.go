package gateway_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// TestUpstreamEnvironment: a stdio upstream gets the default variables,
// what its configuration names and nothing else of the gateway's
// environment. The gateway holds a secret and its clients' token in its
// environment (as token_env reads it), and a client calls with that token
// over HTTP: neither reaches the upstream, in its environment or in any
// message it reads (params, _meta).
func TestUpstreamEnvironment(t *testing.T) {
	const (
		secret      = "gateway-secret-4b1d"
		clientToken = "client-token-9c2e"
	)
	plugintest.SetChildEnv(t, secret, clientToken)
	for _, tc := range []struct {
		name   string
		shared bool
	}{
		{"a client session's upstream session", false},
		{"the shared session", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := stdio("env")
			up.Shared = tc.shared
			up.Env = []string{"CONFIGURED=yes", plugintest.EnvInherited + "=overridden"}
			up.InheritEnv = []string{plugintest.EnvInherited, plugintest.EnvUnset, "TERM"}
			front := auth.New(auth.Config{Verifier: func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
				if tok != os.Getenv(plugintest.EnvToken) {
					return nil, sdkauth.ErrInvalidToken
				}
				return &sdkauth.TokenInfo{UserID: "ada", Expiration: time.Now().Add(time.Hour)}, nil
			}})
			srv, _ := serve(t, func(srv *framework.Server) { check(t, srv.Use(front)) }, up)
			h, err := front.Handler(srv, nil)
			check(t, err)
			c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: httptestServer(t, h),
				HTTPClient: plugintest.BearerClient(clientToken, nil)}, nil)
			check(t, err)
			defer cs.Close()

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "environ", Arguments: map[string]any{},
				Meta: mcp.Meta{"progressToken": "p1", "note": "from the client"}})
			check(t, err)
			lack := []string{plugintest.EnvSecret, plugintest.EnvToken, plugintest.EnvUnset}
			if _, ok := os.LookupEnv("TERM"); !ok {
				lack = append(lack, "TERM") // named by inherit_env, but the gateway has none to pass
			}
			plugintest.WantEnv(t, "the upstream", strings.Split(text(res), "\n"),
				[]string{"CONFIGURED=yes", "HOME=" + plugintest.ChildHome, "PATH=" + os.Getenv("PATH"), plugintest.EnvInherited + "=overridden"}, lack)
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "received", Arguments: map[string]any{}})
			check(t, err)
			got := text(res)
			if !strings.Contains(got, "from the client") {
				t.Errorf("the upstream did not read the client's _meta:\n%s", got)
			}
			for _, bad := range []string{secret, clientToken} {
				if strings.Contains(got, bad) {
					t.Errorf("the upstream read %q:\n%s", bad, got)
				}
			}
		})
	}
}
