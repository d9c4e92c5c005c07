package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// billing is a hookflow server that is an OAuth resource server for an
// oidctest authorization server: its whoami tool answers the principal
// of the token it was called with. It records the Authorization header
// of every HTTP request it receives.
type billing struct {
	url string

	mu      sync.Mutex
	headers []string
}

// whoami is what the billing server's whoami tool answers.
type whoami struct {
	Subject  string   `json:"subject"`
	ClientID string   `json:"client_id"`
	Scopes   []string `json:"scopes"`
}

func serveBilling(t *testing.T, as *oidctest.Server) *billing {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	b := &billing{url: "http://" + hs.Listener.Addr().String() + "/mcp"}
	// Every token signed by an unknown key makes the server fetch the
	// issuer's keys again: a test rotating them sees the change at once.
	rs, err := oauth.New(oauth.Config{Resource: b.url, Issuer: as.Issuer(), ScopesSupported: []string{"billing.read"},
		KeyRefreshInterval: time.Nanosecond})
	check(t, err)
	quiet := slog.New(slog.DiscardHandler)
	srv := framework.NewServer(&mcp.Implementation{Name: "billing", Version: "1"}, &framework.Options{Logger: quiet})
	check(t, framework.AddTool(srv, framework.Tool[struct{}, struct{}, whoami]{
		Tool: &mcp.Tool{Name: "whoami", Description: "who the caller is"},
		Execute: func(_ struct{}, _ context.Context, req *mcp.CallToolRequest, _ struct{}) (whoami, error) {
			p, ok := oauth.PrincipalOf(req.Extra.TokenInfo)
			if !ok {
				return whoami{}, errors.New("no principal")
			}
			return whoami{Subject: p.Subject, ClientID: p.ClientID, Scopes: p.Scopes}, nil
		},
	}))
	a := auth.New(rs.AuthConfig(auth.Config{Logger: quiet}))
	check(t, srv.Use(a))
	check(t, srv.Start())
	h, err := a.Handler(srv, nil)
	check(t, err)
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.MetadataHandler())
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.headers = append(b.headers, r.Header.Get("Authorization"))
		b.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(hs.Close)
	return b
}

// counting is a token source counting its calls.
type counting struct {
	next  oauth2.TokenSource
	calls atomic.Int64
}

func (c *counting) Token() (*oauth2.Token, error) {
	c.calls.Add(1)
	return c.next.Token()
}

// serviceSource is the client credentials of oidctest's service client,
// with secret, for resource with the billing.read scope.
func serviceSource(as *oidctest.Server, secret, resource string) *counting {
	return &counting{next: fetching{&clientcredentials.Config{ClientID: oidctest.ServiceClient, ClientSecret: secret,
		TokenURL: as.TokenEndpoint(), Scopes: []string{"billing.read"}, EndpointParams: url.Values{"resource": {resource}}}}}
}

// TestTokenSourceOIDC mounts an OAuth-protected hookflow server through a
// gateway whose token source is client credentials at a real
// authorization server. The gateway's own clients present a token of
// their own, which must not reach the upstream.
func TestTokenSourceOIDC(t *testing.T) {
	as := startBillingAS(t)
	up := serveBilling(t, as)

	t.Run("calls carry the gateway's token", func(t *testing.T) {
		src := serviceSource(as, oidctest.ServiceSecret, up.url)
		const clientToken = "the-client-s-own-token"
		front := auth.New(auth.Config{Verifier: func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
			if tok != clientToken {
				return nil, sdkauth.ErrInvalidToken
			}
			return &sdkauth.TokenInfo{UserID: "ada", Expiration: time.Now().Add(time.Hour)}, nil
		}})
		srv, _ := serve(t, func(srv *framework.Server) { check(t, srv.Use(front)) },
			gateway.Upstream{Name: "billing", URL: up.url, TokenSource: src})
		h, err := front.Handler(srv, nil)
		check(t, err)
		c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: httptestServer(t, h),
			HTTPClient: plugintest.BearerClient(clientToken, nil)}, nil)
		check(t, err)
		defer cs.Close()
		for range 2 {
			got, isErr := call(t, cs, "whoami", map[string]any{})
			var w whoami
			if err := json.Unmarshal([]byte(got), &w); isErr || err != nil {
				t.Fatalf("whoami = %q (isError %v)", got, isErr)
			}
			if w.Subject != oidctest.ServiceClient || w.ClientID != oidctest.ServiceClient || strings.Join(w.Scopes, " ") != "billing.read" {
				t.Errorf("the upstream saw %+v, want the service client with billing.read", w)
			}
		}
		if n := src.calls.Load(); n != 1 {
			t.Errorf("%d tokens fetched, want 1 shared by the gateway's sessions", n)
		}
		up.mu.Lock()
		defer up.mu.Unlock()
		if len(up.headers) == 0 {
			t.Fatal("the upstream saw no request")
		}
		for i, hdr := range up.headers {
			if strings.Contains(hdr, clientToken) {
				t.Errorf("upstream request %d carries the client's token: %q", i, hdr)
			}
			if !strings.HasPrefix(hdr, "Bearer ") || hdr != up.headers[0] {
				t.Errorf("upstream request %d: Authorization %q, want the gateway's one token %q", i, hdr, up.headers[0])
			}
		}
	})

	t.Run("a wrong secret fails Start", func(t *testing.T) {
		src := serviceSource(as, "not-the-secret", up.url)
		srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
		gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "billing", URL: up.url, TokenSource: src}}})
		check(t, srv.Use(gw))
		t.Cleanup(func() { gw.Close() })
		err := srv.Start()
		if err == nil {
			t.Fatal("Start succeeded with a wrong client secret")
		}
		for _, want := range []string{`upstream "billing"`, "the token endpoint " + as.TokenEndpoint() + " answered", "invalid_client"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Start: %v\nwant it to contain %q", err, want)
			}
		}
		t.Logf("Start: %v", err)
		if strings.Contains(err.Error(), "not-the-secret") {
			t.Errorf("Start: %v: the error shows the secret", err)
		}
	})
}

// TestTokenSourceOIDCRotation: the authorization server rotates its
// signing keys, withdrawing the one that signed the gateway's cached
// token; the upstream then refuses that token, and the gateway's next
// call fetches a new one and succeeds, sending the refused request once
// more.
func TestTokenSourceOIDCRotation(t *testing.T) {
	as := startBillingAS(t)
	up := serveBilling(t, as)
	src := serviceSource(as, oidctest.ServiceSecret, up.url)
	srv, _ := serve(t, nil, gateway.Upstream{Name: "billing", URL: up.url, TokenSource: src, Shared: true})
	cs := connect(t, srv, nil)
	if got, isErr := call(t, cs, "whoami", map[string]any{}); isErr {
		t.Fatalf("whoami = %q", got)
	}
	as.Rotate(t, oidctest.NewKey(t, "k2"))
	// A token of the new key makes the upstream fetch the keys: the old
	// one is gone.
	fresh := as.ClientCredentials(t, up.url, "billing.read")
	req, err := http.NewRequest(http.MethodPost, up.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	check(t, err)
	req.Header.Set("Authorization", "Bearer "+fresh)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	check(t, err)
	resp.Body.Close()

	up.mu.Lock()
	before := len(up.headers)
	old := up.headers[0] // the gateway's token before the rotation
	up.mu.Unlock()
	if got, isErr := call(t, cs, "whoami", map[string]any{}); isErr {
		t.Fatalf("whoami after the rotation = %q, want it retried with a new token", got)
	}
	if n := src.calls.Load(); n != 2 {
		t.Errorf("%d tokens fetched, want 2: one before the rotation, one after", n)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	after := up.headers[before:]
	if len(after) < 2 || !slices.Contains(after, old) || after[len(after)-1] == old {
		t.Errorf("upstream requests after the rotation: %d, want the old token (refused) then a new one", len(after))
	}
}

// startBillingAS starts an authorization server for the billing
// resource, at /mcp on any loopback port.
func startBillingAS(t *testing.T) *oidctest.Server {
	t.Helper()
	return oidctest.Start(t, oidctest.Options{Resources: map[string]oidctest.Resource{
		"/mcp": {Scopes: []string{"billing.read", "billing.admin"}},
	}})
}
