package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// idp is a token endpoint and a resource server in one: it issues tokens
// tok-1, tok-2, … through client credentials (client "gw", secret "s"),
// each valid for expiresIn seconds, and serves an MCP server with an echo
// tool that accepts the tokens it issued and has not revoked.
type idp struct {
	mu        sync.Mutex
	expiresIn int
	issued    int
	resources []string // the resource parameter of each token request
	valid     map[string]bool
	refuseAll bool
	refusals  int
	// calls holds the Authorization header of each tools/call request the
	// upstream received, with its status.
	calls []string
}

func newIDP(t *testing.T, expiresIn int) (i *idp, tokenURL, mcpURL string) {
	i = &idp{expiresIn: expiresIn, valid: map[string]bool{}}
	tokenURL = httptestServer(t, http.HandlerFunc(i.token))
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mcpURL = httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		auth := r.Header.Get("Authorization")
		i.mu.Lock()
		ok := !i.refuseAll && i.valid[strings.TrimPrefix(auth, "Bearer ")]
		if !ok {
			i.refusals++
		}
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			i.calls = append(i.calls, fmt.Sprintf("%s %v", auth, ok))
		}
		i.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return i, tokenURL, mcpURL
}

func (i *idp) token(w http.ResponseWriter, r *http.Request) {
	id, secret, _ := r.BasicAuth()
	if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "client_credentials" || id != "gw" || secret != "s" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"client authentication failed"}`))
		return
	}
	i.mu.Lock()
	i.issued++
	tok := fmt.Sprintf("tok-%d", i.issued)
	i.valid[tok] = true
	i.resources = append(i.resources, r.Form.Get("resource"))
	exp := i.expiresIn
	i.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": exp})
}

// state returns the number of tokens issued and the upstream's tools/call
// requests so far.
func (i *idp) state() (int, []string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.issued, append([]string(nil), i.calls...)
}

// fetching is a token source that fetches a new token at every call, as
// [gateway.Upstream.TokenSource] wants.
type fetching struct{ cfg *clientcredentials.Config }

func (f fetching) Token() (*oauth2.Token, error) { return f.cfg.Token(context.Background()) }

func ccSource(tokenURL, secret, resource string) oauth2.TokenSource {
	return fetching{&clientcredentials.Config{ClientID: "gw", ClientSecret: secret, TokenURL: tokenURL,
		AuthStyle: oauth2.AuthStyleInHeader, EndpointParams: map[string][]string{"resource": {resource}}}}
}

// TestTokenSourceRefresh: the gateway fetches a token once and reuses it
// while it is valid; a token about to expire (expires_in below oauth2's
// ten-second margin) is fetched again for every request.
func TestTokenSourceRefresh(t *testing.T) {
	for _, tc := range []struct {
		name      string
		expiresIn int
		fresh     bool // every request gets a new token
	}{
		{"long-lived token is reused", 3600, false},
		{"expiring token is refreshed", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, tokenURL, mcpURL := newIDP(t, tc.expiresIn)
			srv, _ := serve(t, nil, gateway.Upstream{Name: "up", URL: mcpURL, TokenSource: ccSource(tokenURL, "s", mcpURL)})
			cs := connect(t, srv, nil)
			before, _ := i.state()
			for range 3 {
				if got, isErr := call(t, cs, "echo", map[string]any{}); isErr || got != "echoed" {
					t.Fatalf("echo = %q (isError %v)", got, isErr)
				}
			}
			issued, calls := i.state()
			if len(calls) != 3 {
				t.Fatalf("the upstream saw calls %q, want 3", calls)
			}
			for _, c := range calls {
				if !strings.HasSuffix(c, " true") {
					t.Errorf("upstream call %q, want an accepted token", c)
				}
			}
			if fetched := issued - before; tc.fresh && fetched < 3 || !tc.fresh && fetched != 0 {
				t.Errorf("%d tokens fetched for 3 calls (after %d at connection)", fetched, before)
			}
			if !tc.fresh && issued != 1 {
				t.Errorf("%d tokens fetched in all, want 1", issued)
			}
			i.mu.Lock()
			defer i.mu.Unlock()
			for _, r := range i.resources {
				if r != mcpURL {
					t.Errorf("token request for resource %q, want %q", r, mcpURL)
				}
			}
		})
	}
}

// TestTokenSourceRetryOn401: when the upstream refuses a cached token that
// has not expired (revoked), the gateway fetches a new one and sends the
// request once more; when it refuses the new one too, the call fails
// saying so, and that token, never accepted, is not replaced
// before it expires (the token endpoint is not called for every request
// to an upstream that refuses the gateway).
func TestTokenSourceRetryOn401(t *testing.T) {
	i, tokenURL, mcpURL := newIDP(t, 3600)
	srv, _ := serve(t, nil, gateway.Upstream{Name: "up", URL: mcpURL, TokenSource: ccSource(tokenURL, "s", mcpURL),
		Shared: true, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	cs := connect(t, srv, nil)
	call(t, cs, "echo", map[string]any{})

	i.mu.Lock()
	i.valid["tok-1"] = false // revoked
	i.mu.Unlock()
	if got, isErr := call(t, cs, "echo", map[string]any{}); isErr || got != "echoed" {
		t.Fatalf("echo after revocation = %q (isError %v), want it retried with a new token", got, isErr)
	}
	issued, calls := i.state()
	want := []string{"Bearer tok-1 true", "Bearer tok-1 false", "Bearer tok-2 true"}
	if issued != 2 || strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Fatalf("after revocation: %d tokens issued, upstream calls %q; want 2 and %q", issued, calls, want)
	}

	i.mu.Lock()
	i.refuseAll = true // e.g. the upstream's keys changed, or it wants another audience
	i.mu.Unlock()
	if got, isErr := call(t, cs, "echo", map[string]any{}); !isErr || got != `upstream "up" refused the gateway's credentials for tools/call "echo"` {
		t.Errorf("echo refused by the upstream = %q (isError %v), want the call to fail", got, isErr)
	}
	issued, calls = i.state()
	want = append(want, "Bearer tok-2 false", "Bearer tok-3 false")
	if issued != 3 || strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Errorf("refused: %d tokens issued, upstream calls %q; want 3 and %q", issued, calls, want)
	}
	// The upstream session is lost; reconnecting sends tok-3, which the
	// upstream never accepted: no new token for it.
	eventually(t, "reconnection attempts", func() bool {
		i.mu.Lock()
		defer i.mu.Unlock()
		return i.refusals >= 5
	})
	if issued, _ := i.state(); issued != 3 {
		t.Errorf("%d tokens issued while reconnecting with a refused token, want 3", issued)
	}
}

// TestTokenSourceConcurrentRefusals: calls in flight together, all
// refused with the revoked token, share one new token.
func TestTokenSourceConcurrentRefusals(t *testing.T) {
	i, tokenURL, mcpURL := newIDP(t, 3600)
	srv, _ := serve(t, nil, gateway.Upstream{Name: "up", URL: mcpURL, TokenSource: ccSource(tokenURL, "s", mcpURL), Shared: true})
	cs := connect(t, srv, nil)
	call(t, cs, "echo", map[string]any{})
	i.mu.Lock()
	i.valid["tok-1"] = false
	i.mu.Unlock()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Errorf("echo: %v %v", err, res)
			}
		})
	}
	wg.Wait()
	if issued, _ := i.state(); issued != 2 {
		t.Errorf("%d tokens issued, want 2: one before the revocation, one shared after", issued)
	}
}

// TestTokenSourceFails: a token endpoint that refuses the gateway's
// credentials fails its Start with an error naming the upstream and the
// endpoint and giving its answer, and not the secret.
func TestTokenSourceFails(t *testing.T) {
	_, tokenURL, mcpURL := newIDP(t, 3600)
	srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", URL: mcpURL, TokenSource: ccSource(tokenURL, "wrong-secret", mcpURL)}}})
	check(t, srv.Use(gw))
	t.Cleanup(func() { gw.Close() })
	err := srv.Start()
	if err == nil {
		t.Fatal("Start succeeded with a wrong client secret")
	}
	for _, want := range []string{`upstream "up"`, "the token endpoint " + tokenURL + " answered", `"invalid_client" "client authentication failed"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v\nwant it to contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("Start: %v: the error shows the secret", err)
	}
	var te *gateway.TokenError
	var re *oauth2.RetrieveError
	if !errors.As(err, &te) || te.Upstream != "up" || !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("Start: %v (%T): want a *gateway.TokenError wrapping the endpoint's *oauth2.RetrieveError", err, err)
	}
}

// hanging is a token source that answers only when release is closed.
type hanging struct{ release chan struct{} }

func (h hanging) Token() (*oauth2.Token, error) {
	<-h.release
	return nil, errors.New("released")
}

// TestTokenSourceHangs: a token source that does not answer fails the
// connection when its ConnectTimeout ends, naming the upstream (the SDK
// reports the connection's deadline, not the wait it interrupted).
func TestTokenSourceHangs(t *testing.T) {
	_, _, mcpURL := newIDP(t, 3600)
	src := hanging{release: make(chan struct{})}
	t.Cleanup(func() { close(src.release) })
	srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "up", URL: mcpURL, TokenSource: src, ConnectTimeout: 100 * time.Millisecond}}})
	check(t, srv.Use(gw))
	t.Cleanup(func() { gw.Close() })
	err := srv.Start()
	if err == nil || !strings.Contains(err.Error(), `upstream "up"`) || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("Start: %v, want the wait for a token to end with ConnectTimeout", err)
	}
}
