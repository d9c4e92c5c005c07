package gateway_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
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
	t.Setenv("HOOKFLOW_TEST_SECRET", secret)
	t.Setenv("HOOKFLOW_TEST_GATEWAY_TOKEN", clientToken)
	t.Setenv("HOOKFLOW_TEST_INHERITED", "inherited")
	t.Setenv("HOME", "/home/hookflow-test")
	os.Unsetenv("HOOKFLOW_TEST_UNSET")
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
			up.Env = []string{"CONFIGURED=yes", "HOOKFLOW_TEST_INHERITED=overridden"}
			up.InheritEnv = []string{"HOOKFLOW_TEST_INHERITED", "HOOKFLOW_TEST_UNSET", "TERM"}
			front := auth.New(auth.Config{Verifier: func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
				if tok != os.Getenv("HOOKFLOW_TEST_GATEWAY_TOKEN") {
					return nil, sdkauth.ErrInvalidToken
				}
				return &sdkauth.TokenInfo{UserID: "ada", Expiration: time.Now().Add(time.Hour)}, nil
			}})
			srv, _ := serve(t, func(srv *framework.Server) { check(t, srv.Use(front)) }, up)
			h, err := front.Handler(srv, nil)
			check(t, err)
			c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: httptestServer(t, h),
				HTTPClient: &http.Client{Transport: bearerTransport(clientToken)}}, nil)
			check(t, err)
			defer cs.Close()

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "environ", Arguments: map[string]any{},
				Meta: mcp.Meta{"progressToken": "p1", "note": "from the client"}})
			check(t, err)
			env := strings.Split(text(res), "\n")
			for _, want := range []string{"CONFIGURED=yes", "HOME=/home/hookflow-test", "PATH=" + os.Getenv("PATH"), "HOOKFLOW_TEST_INHERITED=overridden"} {
				if !slices.Contains(env, want) {
					t.Errorf("the upstream's environment lacks %s:\n%s", want, text(res))
				}
			}
			if _, ok := os.LookupEnv("TERM"); !ok && hasVar(env, "TERM") {
				t.Errorf("the upstream got TERM, which the gateway's environment does not set:\n%s", text(res))
			}
			for _, bad := range []string{"HOOKFLOW_TEST_SECRET", "HOOKFLOW_TEST_GATEWAY_TOKEN", "HOOKFLOW_TEST_UNSET"} {
				if hasVar(env, bad) {
					t.Errorf("the upstream's environment has %s:\n%s", bad, text(res))
				}
			}
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

// hasVar reports whether env sets the variable k.
func hasVar(env []string, k string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, k+"=") {
			return true
		}
	}
	return false
}
