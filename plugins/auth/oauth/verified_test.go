package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestTokenCache checks what the cache of accepted JWTs may answer: an
// accepted token is remembered, a refused one is not, a remembered token
// is refused once its exp has passed (the skew made a nanosecond, so that
// only the cache could accept it), keys older than KeyMaxAge are fetched
// again for a remembered token as for any other, and a negative size keeps
// nothing.
func TestTokenCache(t *testing.T) {
	as := authServer.Get(t)
	k1 := as.Keys()[0]
	const resource = "http://127.0.0.1:8/mcp"
	start := time.Now()
	token := func(jti string, exp time.Time) string {
		return mint(t, k1, "at+jwt", map[string]any{"iss": as.Issuer(), "sub": "alice", "aud": resource, "scope": readScope,
			"iat": start.Unix(), "exp": exp.Unix(), "jti": jti})
	}
	type step struct {
		advance time.Duration
		token   string
		want    oauth.Reason // 0: accepted
		held    int          // tokens remembered after the step
	}
	short := token("short", start.Add(2*time.Minute))
	long := token("long", start.Add(time.Hour))
	tests := []struct {
		name    string
		cfg     oauth.Config
		steps   []step
		refetch bool // the last step makes the server fetch the keys again
	}{
		{name: "remembered until exp", cfg: oauth.Config{ClockSkew: time.Nanosecond}, steps: []step{
			{token: short, held: 1},
			{token: short, held: 1},
			{advance: 2*time.Minute + time.Second, token: short, want: oauth.Expired, held: 1},
		}},
		{name: "refused, not remembered", steps: []step{
			{token: token("expired", start.Add(-time.Hour)), want: oauth.Expired},
			{token: mint(t, k1, "at+jwt", map[string]any{"iss": as.Issuer(), "sub": "a", "aud": "http://127.0.0.1:8/other", "exp": start.Add(time.Hour).Unix()}), want: oauth.Audience},
			{token: long, held: 1},
		}},
		{name: "keys past KeyMaxAge", cfg: oauth.Config{KeyMaxAge: 10 * time.Minute, KeyRefreshInterval: time.Minute}, refetch: true, steps: []step{
			{token: long, held: 1},
			{advance: 11 * time.Minute, token: long, held: 1},
		}},
		{name: "off", cfg: oauth.Config{TokenCacheSize: -1}, steps: []step{
			{token: long},
			{token: long},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Resource, cfg.Issuer = resource, as.Issuer()
			rs := newRS(t, cfg)
			clk := &clock{t: start}
			oauth.SetClock(rs, clk.Now)
			if err := rs.Discover(context.Background()); err != nil {
				t.Fatal(err)
			}
			fetches := as.JWKSFetches()
			for i, s := range tt.steps {
				clk.Advance(s.advance)
				_, err := rs.Verify(context.Background(), s.token, nil)
				if got := reason(t, err); got != s.want {
					t.Fatalf("step %d: %v; want reason %v", i, err, s.want)
				}
				if n := oauth.TokensHeld(rs); n != s.held {
					t.Fatalf("step %d: %d tokens remembered, want %d", i, n, s.held)
				}
			}
			if !tt.refetch {
				return
			}
			for deadline := time.Now().Add(5 * time.Second); as.JWKSFetches() == fetches; {
				if time.Now().After(deadline) {
					t.Fatal("no JWKS fetch: a remembered token must not keep keys past KeyMaxAge")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestTokenCacheBound verifies many distinct good tokens with a small
// cache: it never holds more than its size, and the last token is still
// remembered.
func TestTokenCacheBound(t *testing.T) {
	as := authServer.Get(t)
	k1 := as.Keys()[0]
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), TokenCacheSize: 60})
	exp := time.Now().Add(time.Hour).Unix()
	const size, tokens = 64, 1000 // 60 rounded up to a power of two
	var last string
	for i := range tokens {
		last = mint(t, k1, "at+jwt", map[string]any{"iss": as.Issuer(), "sub": "alice", "aud": resource, "exp": exp, "jti": strconv.Itoa(i)})
		if _, err := rs.Verify(context.Background(), last, nil); err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
		if n := oauth.TokensHeld(rs); n > size {
			t.Fatalf("after %d tokens, %d remembered: want at most %d", i+1, n, size)
		}
	}
	if n := oauth.TokensHeld(rs); n < size/2 {
		t.Errorf("%d of %d slots used after %d tokens: the hash spreads them badly", n, size, tokens)
	}
	if _, err := rs.Verify(context.Background(), last, nil); err != nil {
		t.Fatal(err)
	}
}

// TestCachedTokenAllocs guards the allocations of a remembered JWT, in
// Verify (the token's bytes to hash, the TokenInfo, its Extra map and the
// client ID in it) and through the auth plugin's HTTP middleware.
func TestCachedTokenAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	as := authServer.Get(t)
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer()})
	token := as.ClientCredentials(t, resource, readScope)
	h, req := cachedJWTMiddleware(t, rs, token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{name: "Verify", want: 5, f: func() {
			if _, err := rs.Verify(context.Background(), token, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "middleware", want: 13, f: func() { h.ServeHTTP(w, req) }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got != tt.want {
			t.Errorf("%s: %v allocations a call, want %v", tt.name, got, tt.want)
		}
	}
}

// cachedJWTMiddleware returns the auth plugin's middleware verifying with
// rs, in front of a handler that fails with 418 unless it sees the token's
// info, and a request carrying token.
func cachedJWTMiddleware(t testing.TB, rs *oauth.ResourceServer, token string) (http.Handler, *http.Request) {
	t.Helper()
	if err := rs.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	mw, err := auth.New(rs.AuthConfig(auth.Config{Scopes: []string{readScope}})).Middleware()
	if err != nil {
		t.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sdkauth.TokenInfoFromContext(r.Context()) == nil || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8/mcp", http.NoBody)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+token)
	return h, req
}
