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

// TestChallengeOnEachTransport runs the HTTP scope challenge both ways
// the plugin can: on Handler the transport runs it on the body it decodes
// once (framework.CheckCalls); as Middleware around the server's handler
// the middleware reads the body. Either way a call the token lacks the
// scopes of is answered 403 with the step-up challenge and a JSON-RPC
// error of the call's ID, before the tool runs, and a call it has the
// scopes of runs.
func TestChallengeOnEachTransport(t *testing.T) {
	opts := &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}
	for _, way := range []struct {
		name  string
		build func(*framework.Server, *auth.Plugin) (http.Handler, error)
	}{
		{"Handler", func(srv *framework.Server, p *auth.Plugin) (http.Handler, error) { return p.Handler(srv, opts) }},
		{"Middleware", func(srv *framework.Server, p *auth.Plugin) (http.Handler, error) {
			mw, err := p.Middleware()
			if err != nil {
				return nil, err
			}
			h, err := srv.HTTPHandler(opts)
			if err != nil {
				return nil, err
			}
			return srv.GuardBodies(mw(h)), nil
		}},
	} {
		t.Run(way.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "auth-test", Version: "1"}, nil)
			addTools(t, srv)
			p := auth.New(challenging())
			if err := srv.Use(p); err != nil {
				t.Fatal(err)
			}
			h, err := way.build(srv, p)
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
// takes a check on the server's own handler only: behind another handler
// nothing would run it, and the caller must read the body itself.
func TestCheckCallsOnlyOnHookflowsTransport(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !framework.CheckCalls(h, nil) {
		t.Error("CheckCalls refused the server's handler")
	}
	if framework.CheckCalls(http.StripPrefix("/", h), nil) || framework.CheckCalls(http.NotFoundHandler(), nil) {
		t.Error("CheckCalls took a handler that is not the server's")
	}
}
