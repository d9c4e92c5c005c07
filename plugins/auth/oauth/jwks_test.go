package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// TestKeyRotation rotates the authorization server's signing key: a token
// signed with the new key makes the resource server fetch the JWKS once,
// then it is accepted; unknown kids make it fetch at most once per
// KeyRefreshInterval, and a key the server dropped is no longer trusted.
func TestKeyRotation(t *testing.T) {
	k1, k2 := oidctest.NewKey(t, "k1"), oidctest.NewKey(t, "k2")
	as := startAS(t, k1)
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), KeyRefreshInterval: time.Minute, KeyMaxAge: 10 * time.Minute})
	clk := newClock()
	oauth.SetClock(rs, clk.Now)
	verify := func(token string) error {
		_, err := rs.Verify(context.Background(), token, nil)
		return err
	}

	old := as.ClientCredentials(t, resource, readScope)
	if err := verify(old); err != nil {
		t.Fatalf("a token of the first key: %v", err)
	}
	if n := as.JWKSFetches(); n != 1 {
		t.Fatalf("%d JWKS fetches for the first token, want 1", n)
	}

	as.Rotate(t, k2, k1) // k2 signs, k1 still published
	rotated := as.ClientCredentials(t, resource, readScope)
	if err := verify(rotated); reason(t, err) != oauth.UnknownKey {
		t.Errorf("a token of the new key within KeyRefreshInterval of the last fetch: %v; want unknown_key", err)
	}
	if n := as.JWKSFetches(); n != 1 {
		t.Errorf("%d JWKS fetches, want still 1: the last fetch is too recent", n)
	}

	clk.Advance(time.Minute)
	// Many requests with the new key at once: one fetch serves them all.
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() { errs[i] = verify(rotated) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d with the new key, once the interval passed: %v", i, err)
		}
	}
	if n := as.JWKSFetches(); n != 2 {
		t.Errorf("%d JWKS fetches, want 2: one for all the requests with the new key", n)
	}
	if err := verify(old); err != nil {
		t.Errorf("a token of the old key, still published: %v", err)
	}

	// A kid nobody publishes: one fetch per interval, however many tokens.
	forged := mint(t, oidctest.NewKey(t, "k9"), "at+jwt", map[string]any{"iss": as.Issuer(), "sub": "eve", "aud": resource, "exp": clk.Now().Add(time.Minute).Unix()})
	clk.Advance(time.Minute)
	for range 5 {
		if err := verify(forged); reason(t, err) != oauth.UnknownKey {
			t.Fatalf("a forged kid: %v; want unknown_key", err)
		}
	}
	if n := as.JWKSFetches(); n != 3 {
		t.Errorf("%d JWKS fetches, want 3: five forged tokens make one fetch", n)
	}

	k3 := oidctest.NewKey(t, "k3")
	as.Rotate(t, k3) // k1 and k2 withdrawn
	newest := as.ClientCredentials(t, resource, readScope)
	clk.Advance(10 * time.Minute)
	if err := verify(rotated); err != nil {
		t.Errorf("a token of a cached key, the keys past KeyMaxAge: %v", err)
	}
	// That request began a refresh in the background; this one, with a
	// key only the refresh knows, waits for it (or finds its keys).
	if err := verify(newest); err != nil {
		t.Errorf("a token of the newest key: %v", err)
	}
	if n := as.JWKSFetches(); n != 4 {
		t.Errorf("%d JWKS fetches, want 4: the background refresh serves the newest key", n)
	}
	for name, token := range map[string]string{"first": old, "second": rotated} {
		if err := verify(token); reason(t, err) != oauth.UnknownKey {
			t.Errorf("a token of the withdrawn %s key: %v; want unknown_key", name, err)
		}
	}
}

// TestJWKSDown takes the JWKS endpoint down: a token whose key is not
// cached is refused (an *UnavailableError, not an invalid token) within
// FetchTimeout even when the endpoint hangs, the endpoint is not asked
// again within KeyRefreshInterval, and checks resume when it is back.
func TestJWKSDown(t *testing.T) {
	as := authServer.Get(t)
	defer as.SetJWKS(oidctest.JWKSUp)
	start := as.JWKSFetches()
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer(), FetchTimeout: 500 * time.Millisecond, KeyRefreshInterval: time.Minute, KeyMaxAge: 10 * time.Minute})
	clk := newClock()
	oauth.SetClock(rs, clk.Now)
	token := as.ClientCredentials(t, resource, readScope)
	unavailable := func(err error) bool {
		var ue *oauth.UnavailableError
		return errors.As(err, &ue) && ue.What == "jwks"
	}

	as.SetJWKS(oidctest.JWKSHanging)
	// No deadline here: only FetchTimeout ends the wait.
	_, err := rs.Verify(context.Background(), token, nil)
	if !unavailable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("JWKS hanging: %v; want an *UnavailableError for the JWKS, from FetchTimeout", err)
	}
	if _, err := rs.Verify(context.Background(), token, nil); !unavailable(err) {
		t.Errorf("JWKS hanging, asked again at once: %v; want the same failure", err)
	}
	if n := as.JWKSFetches() - start; n != 1 {
		t.Errorf("%d JWKS fetches, want 1: a failed fetch is not retried within KeyRefreshInterval", n)
	}

	as.SetJWKS(oidctest.JWKSDown)
	clk.Advance(time.Minute)
	if _, err := rs.Verify(context.Background(), token, nil); !unavailable(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("JWKS answering 503: %v; want an *UnavailableError", err)
	}

	as.SetJWKS(oidctest.JWKSUp)
	if _, err := rs.Verify(context.Background(), token, nil); !unavailable(err) {
		t.Errorf("JWKS back, within KeyRefreshInterval of the failure: %v; want the failure", err)
	}
	clk.Advance(time.Minute)
	if _, err := rs.Verify(context.Background(), token, nil); err != nil {
		t.Fatalf("JWKS back: %v", err)
	}

	// Down again, with the keys cached: tokens of known keys still pass,
	// even past KeyMaxAge (the failed refresh keeps the keys).
	as.SetJWKS(oidctest.JWKSDown)
	before := as.JWKSFetches()
	clk.Advance(10 * time.Minute)
	if _, err := rs.Verify(context.Background(), token, nil); err != nil {
		t.Errorf("JWKS down, keys cached: %v", err)
	}
	// That request began a refresh in the background. A token of an unknown
	// key waits for it (or finds it ended): either way it has ended after.
	forged := mint(t, oidctest.NewKey(t, "k9"), "at+jwt", map[string]any{"iss": as.Issuer(), "sub": "eve", "aud": resource, "exp": clk.Now().Add(time.Minute).Unix()})
	if _, err := rs.Verify(context.Background(), forged, nil); !unavailable(err) && reason(t, err) != oauth.UnknownKey {
		t.Errorf("an unknown kid, JWKS down: %v; want the refresh's failure or unknown_key", err)
	}
	if _, err := rs.Verify(context.Background(), token, nil); err != nil {
		t.Errorf("JWKS down, after the failed refresh: %v; want the cached key kept", err)
	}
	if n := as.JWKSFetches(); n != before+1 {
		t.Errorf("%d JWKS fetches, want %d: one background refresh", n, before+1)
	}
}

// TestDiscover checks the start-up check: it finds the keys of a real
// issuer, and names what is wrong with a wrong one.
func TestDiscover(t *testing.T) {
	as := authServer.Get(t)
	const resource = "http://127.0.0.1:8/mcp"
	start := as.JWKSFetches()
	if err := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer()}).Discover(context.Background()); err != nil {
		t.Errorf("Discover: %v", err)
	}
	if n := as.JWKSFetches() - start; n != 1 {
		t.Errorf("%d JWKS fetches, want 1", n)
	}
	err := newRS(t, oauth.Config{Resource: resource, Issuer: as.Issuer() + "/tenant"}).Discover(context.Background())
	var ue *oauth.UnavailableError
	if !errors.As(err, &ue) || ue.What != "metadata" {
		t.Errorf("Discover with an issuer that has no metadata: %v; want an *UnavailableError for the metadata", err)
	}
}

// keyServer is an authorization server of the test's own, in process: its
// metadata names it the issuer, and its JWKS publishes the public halves
// of the keys the test sets. It counts the JWKS fetches.
type keyServer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetches atomic.Int64
}

func newKeyServer(t *testing.T, keys ...jose.JSONWebKey) *keyServer {
	t.Helper()
	ks := &keyServer{keys: keys}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": ks.URL, "jwks_uri": ks.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		ks.fetches.Add(1)
		ks.mu.Lock()
		var set jose.JSONWebKeySet
		for _, k := range ks.keys {
			set.Keys = append(set.Keys, k.Public())
		}
		ks.mu.Unlock()
		_ = json.NewEncoder(w).Encode(set)
	})
	ks.Server = httptest.NewServer(mux)
	t.Cleanup(ks.Close)
	return ks
}

// publish replaces the published keys.
func (ks *keyServer) publish(keys ...jose.JSONWebKey) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.keys = keys
}

// TestKeyRotatedUnderSameKid rotates the issuer's key without changing
// its kid: a token of the new key, whose signature fails under the cached
// key of that kid, makes the resource server fetch the JWKS again and is
// accepted — at most one fetch per KeyRefreshInterval, shared by
// concurrent requests, so that tokens with forged signatures under a
// known kid cannot make it fetch more often than forged kids can.
func TestKeyRotatedUnderSameKid(t *testing.T) {
	const resource = "http://127.0.0.1:8/mcp"
	oldKey, newKey, evil := oidctest.NewKey(t, "k1"), oidctest.NewKey(t, "k1"), oidctest.NewKey(t, "k1")
	as := newKeyServer(t, oldKey)
	rs := newRS(t, oauth.Config{Resource: resource, Issuer: as.URL, KeyRefreshInterval: time.Minute, KeyMaxAge: time.Hour})
	clk := newClock()
	oauth.SetClock(rs, clk.Now)
	token := func(key jose.JSONWebKey) string {
		return mint(t, key, "at+jwt", map[string]any{"iss": as.URL, "sub": "alice", "aud": resource, "exp": clk.Now().Add(time.Hour).Unix()})
	}
	oldToken, newToken, forged := token(oldKey), token(newKey), token(evil)

	// Each step verifies its token n times at once, after moving the
	// clock by advance, and wants every answer to be want (0: accepted)
	// and the JWKS fetched fetches times in all so far.
	for _, step := range []struct {
		name    string
		advance time.Duration
		token   string
		n       int
		want    oauth.Reason
		fetches int64
		rotate  bool // publish newKey under k1 before the step
	}{
		{name: "the first key", token: oldToken, n: 1, fetches: 1},
		{name: "rotated, within the interval of the last fetch", rotate: true, token: newToken, n: 1, want: oauth.Signature, fetches: 1},
		{name: "rotated, once the interval passed: one fetch for all", advance: time.Minute, token: newToken, n: 16, fetches: 2},
		{name: "the new key, cached", token: newToken, n: 4, fetches: 2},
		{name: "the withdrawn key, just fetched", token: oldToken, n: 1, want: oauth.Signature, fetches: 2},
		{name: "forged signatures under k1: one fetch", advance: time.Minute, token: forged, n: 64, want: oauth.Signature, fetches: 3},
		{name: "forged signatures under k1, again: none", token: forged, n: 64, want: oauth.Signature, fetches: 3},
		{name: "forged signatures under k1, half an interval on: none", advance: 30 * time.Second, token: forged, n: 64, want: oauth.Signature, fetches: 3},
	} {
		if step.rotate {
			as.publish(newKey)
		}
		clk.Advance(step.advance)
		errs := make([]error, step.n)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = rs.Verify(context.Background(), step.token, nil) })
		}
		wg.Wait()
		for i, err := range errs {
			if got := reason(t, err); got != step.want {
				want := "it accepted"
				if step.want != 0 {
					want = "reason " + step.want.String()
				}
				t.Errorf("%s: request %d: %v; want %s", step.name, i, err, want)
				break
			}
		}
		if n := as.fetches.Load(); n != step.fetches {
			t.Errorf("%s: %d JWKS fetches in all, want %d", step.name, n, step.fetches)
		}
	}
}
