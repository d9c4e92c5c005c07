package plugins_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// user is a caller: a name, a bearer token and whether it may deploy.
type user struct {
	name   string
	token  string // secret: searched for in every audit record
	deploy bool   // holds scope deploy:write
}

// Three users may deploy, two may not.
var users = []user{
	{"ann", "tok-ann-6c1f0e9d8b7a65432100", true},
	{"bob", "tok-bob-0a9b8c7d6e5f40312233", true},
	{"eve", "tok-eve-55aa66bb77cc88dd99ee", true},
	{"cy", "tok-cy-1029384756abcdef0918", false},
	{"dee", "tok-dee-fedcba98765432100123", false},
}

func verifier(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	for _, u := range users {
		if u.token == token {
			scopes := []string{"mcp"}
			if u.deploy {
				scopes = append(scopes, "deploy:write")
			}
			return &sdkauth.TokenInfo{UserID: u.name, Scopes: scopes, Expiration: time.Now().Add(time.Hour)}, nil
		}
	}
	return nil, sdkauth.ErrInvalidToken
}

// The tools: "lookup" is read-only (cached), "deploy" needs deploy:write,
// "search" has a tool budget.
type (
	lookupIn struct {
		Key int `json:"key"`
	}
	lookupOut struct {
		Key int `json:"key"`
		// Serial numbers lookup's executions: a cached answer repeats the
		// serial of the execution it was stored from.
		Serial int64 `json:"serial"`
	}
	deployIn struct {
		Target string `json:"target"`
	}
	deployOut struct {
		Deployed string `json:"deployed"`
	}
	searchIn struct {
		Q string `json:"q"`
	}
	searchOut struct {
		Q string `json:"q"`
	}
)

const (
	scopeDenial = `permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`
	unavailable = "rate limit: the rate limiter is unavailable, so the call was refused; retry later"

	authHook  = "/plugin:auth/tools:call-tool/beforeValidation/scopes"
	authHTTP  = "/plugin:auth/http:scope-challenge" // refused with HTTP 403
	limitHook = "/plugin:ratelimit/tools:call-tool/beforeValidation/take"
	cacheHook = "/plugin:cache/tools:call-tool/beforeExecute/lookup"
)

// rateRefusal is the text of a call refused by an exhausted budget; with a
// rate of ~0 the retry-after hint is decades away.
var rateRefusal = regexp.MustCompile(`^rate limit: too many calls (by this user|to tool "search"); retry after \d+h[0-9hms]*$`)

// stackConfig chooses the plugins of a stack: a server with the tools and
// the four plugins, served over HTTP.
type stackConfig struct {
	ratelimit ratelimit.Config
	audits    []audit.Config
	// challenge keeps the auth plugin's HTTP 403 insufficient-scope response
	// (its default); otherwise denials are in-band isError results, which
	// the audit plugin sees.
	challenge bool
	// jsonResponse answers each POST with one JSON body instead of an SSE
	// stream (the SDK's default): the same plugins' work at half the cost.
	jsonResponse bool
}

type stack struct {
	url       string
	transport *http.Transport
	auth      *auth.Plugin
	rl        *ratelimit.Plugin
	cache     *cache.Plugin
	audits    []*audit.Plugin

	serial                 atomic.Int64 // lookup's executions
	deployRuns, searchRuns atomic.Int64
	sessionUser            sync.Map // session ID → user name
	listCalls              atomic.Int64
}

func newStack(t *testing.T, cfg stackConfig) *stack {
	t.Helper()
	s := &stack{}
	srv := framework.NewServer(&mcp.Implementation{Name: "all-plugins", Version: "1"}, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(framework.AddTool(srv, framework.Tool[struct{}, lookupIn, lookupOut]{
		Tool: &mcp.Tool{Name: "lookup", Description: "read-only lookup", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in lookupIn) (lookupOut, error) {
			return lookupOut{Key: in.Key, Serial: s.serial.Add(1)}, nil
		},
	}))
	must(framework.AddTool(srv, framework.Tool[struct{}, deployIn, deployOut]{
		Tool:   &mcp.Tool{Name: "deploy", Description: "deploys"},
		Scopes: []string{"deploy:write"},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in deployIn) (deployOut, error) {
			s.deployRuns.Add(1)
			return deployOut{Deployed: in.Target}, nil
		},
	}))
	must(framework.AddTool(srv, framework.Tool[struct{}, searchIn, searchOut]{
		Tool: &mcp.Tool{Name: "search", Description: "searches"},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
			s.searchRuns.Add(1)
			return searchOut{Q: in.Q}, nil
		},
	}))

	for _, ac := range cfg.audits {
		a := audit.New(ac)
		// Registered before the HTTP server's cleanup: closed after it.
		t.Cleanup(func() { _ = a.Close(context.Background()) })
		s.audits = append(s.audits, a)
	}
	authCfg := auth.Config{Verifier: verifier, Scopes: []string{"mcp"}, ScopeChallenge: cfg.challenge}
	if len(s.audits) > 0 {
		authCfg.Audit = s.audits[0] // the calls refused with 403 are audited too
	}
	s.auth = auth.New(authCfg)
	s.rl = ratelimit.New(cfg.ratelimit)
	s.cache = cache.New(cache.Config{TTL: time.Hour})
	must(srv.Use(s.auth))
	must(srv.Use(s.rl))
	must(srv.Use(s.cache))
	for _, a := range s.audits {
		must(srv.Use(a))
	}
	h, err := s.auth.Handler(srv, &mcp.StreamableHTTPOptions{JSONResponse: cfg.jsonResponse})
	must(err)
	must(s.rl.Check())
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	s.url = ts.URL
	s.transport = http.DefaultTransport.(*http.Transport).Clone()
	s.transport.MaxIdleConnsPerHost = 256 // 1,000 concurrent POSTs: reuse connections
	t.Cleanup(s.transport.CloseIdleConnections)
	return s
}

// connect opens a session for u and lists its tools: deploy is hidden from
// users without deploy:write.
func (s *stack) connect(t *testing.T, u user) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client-" + u.name, Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: plugintest.BearerClient(u.token, s.transport), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", u.name, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s.sessionUser.Store(cs.ID(), u.name)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%s: tools/list: %v", u.name, err)
	}
	s.listCalls.Add(1)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"lookup", "search"}
	if u.deploy {
		want = []string{"deploy", "lookup", "search"}
	}
	if !slices.Equal(names, want) {
		t.Errorf("%s: tools/list = %v, want %v", u.name, names, want)
	}
	return cs
}

// kind is what the client got from a call.
type kind int

const (
	answered   kind = iota // a result: from the tool or the cache
	scopeDeny              // refused by the auth plugin, with the reason
	limited                // refused by a spent budget, with a retry-after hint
	unavail                // refused: the rate limiter's backend is down
	unexpected             // anything else, including no answer at all
)

func (k kind) String() string {
	return [...]string{"answered", "scopeDeny", "limited", "unavail", "unexpected"}[k]
}

// classify sorts what a call got. In challenge mode a scope denial is an
// HTTP 403, which the SDK client (v1.8.0) reports as a call error carrying
// the JSON-RPC error's message.
func classify(res *mcp.CallToolResult, err error, challenge bool) (kind, string) {
	if err != nil {
		if challenge && strings.Contains(err.Error(), scopeDenial) {
			return scopeDeny, err.Error()
		}
		return unexpected, "error: " + err.Error()
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	switch {
	case !res.IsError:
		return answered, text
	case text == scopeDenial && !challenge:
		return scopeDeny, text
	case rateRefusal.MatchString(text):
		return limited, text
	case text == unavailable:
		return unavail, text
	}
	return unexpected, "isError: " + text
}
