package auth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// TestChallengeOnEachTransport runs the HTTP scope challenge on both of
// framework's transports: on hookflow's the transport runs it on the body
// it decodes once (framework.CheckCalls), on the SDK's the middleware reads
// the body. Either way a call the token lacks the scopes of is answered
// 403 with the step-up challenge and a JSON-RPC error of the call's ID,
// before the tool runs, and a call it has the scopes of runs.
func TestChallengeOnEachTransport(t *testing.T) {
	for _, tr := range []framework.HTTPTransport{framework.HTTPTransportSDK, framework.HTTPTransportHookflow} {
		t.Run(tr.String(), func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "auth-test", Version: "1"}, &framework.Options{HTTPTransport: tr})
			addTools(t, srv)
			p := auth.New(challenging())
			if err := srv.Use(p); err != nil {
				t.Fatal(err)
			}
			h, err := p.Handler(srv, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			post := func(token, body string) (*plugintest.Response, string) {
				resp := plugintest.Post(t, ts.URL, body, &plugintest.HTTPOptions{Authorization: "Bearer " + token})
				return resp, string(resp.Body)
			}
			resp, body := post(tokNotes, callBody("deploy"))
			if resp.Status != http.StatusForbidden {
				t.Fatalf("a call without its scope: %d %s, want 403", resp.Status, body)
			}
			if c := bearerParams(t, resp.Header.Values("WWW-Authenticate")); c["error"] != "insufficient_scope" || c["scope"] != "deploy:write" {
				t.Errorf("challenge %v, want insufficient_scope for deploy:write", c)
			}
			var msg struct {
				ID    int `json:"id"`
				Error struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.ID != 7 || msg.Error.Code != auth.CodeInsufficientScope {
				t.Errorf("body %s: want the error %d for id 7", body, auth.CodeInsufficientScope)
			}
			if resp, body := post(tokDeploy, callBody("deploy")); resp.Status != http.StatusOK || strings.Contains(body, `"error"`) {
				t.Errorf("a call with its scope: %d %s, want 200 and a result", resp.Status, body)
			}
		})
	}
}

// TestCheckCallsOnlyOnHookflowsTransport checks that framework.CheckCalls
// takes a check on hookflow's transport only: on the SDK's handler nothing
// would run it, and the caller must read the body itself.
func TestCheckCallsOnlyOnHookflowsTransport(t *testing.T) {
	for tr, want := range map[framework.HTTPTransport]bool{framework.HTTPTransportSDK: false, framework.HTTPTransportHookflow: true} {
		srv := framework.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &framework.Options{HTTPTransport: tr})
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := framework.CheckCalls(h, nil); got != want {
			t.Errorf("%s: CheckCalls = %v, want %v", tr, got, want)
		}
		if framework.CheckCalls(http.NotFoundHandler(), nil) {
			t.Error("CheckCalls took a handler that is not the server's")
		}
	}
}
