package oauth_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/hookflow/hookflow/internal/oidctest"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// BenchmarkVerify measures checking a real token once the keys (or the
// introspection result) are cached, in full (jwt, the token cache off) and
// remembered (jwt-cached), against the baseline of go-jose's ES256
// signature check alone.
func BenchmarkVerify(b *testing.B) {
	as := authServer.Get(b)
	const resource = "http://127.0.0.1:8/mcp"
	token := as.ClientCredentials(b, resource, readScope)
	key := as.Keys()[0].Public()

	b.Run("baseline=go-jose-signature-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
			if err != nil {
				b.Fatal(err)
			}
			var c jwt.Claims
			if err := tok.Claims(key.Key, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		size int
	}{{"jwt", -1}, {"jwt-cached", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			rs := newRS(b, oauth.Config{Resource: resource, Issuer: as.Issuer(), TokenCacheSize: bc.size})
			if err := rs.Discover(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rs.Verify(context.Background(), token, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("introspection-cached", func(b *testing.B) {
		const opaque = "http://127.0.0.1:8/opaque"
		rs := newRS(b, oauth.Config{Resource: opaque, Issuer: as.Issuer(),
			Introspection: &oauth.Introspection{ClientID: oidctest.IntrospectionClient, ClientSecret: oidctest.IntrospectionSecret}})
		tok := as.ClientCredentials(b, opaque, readScope)
		if _, err := rs.Verify(context.Background(), tok, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rs.Verify(context.Background(), tok, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMiddlewareJWT measures the auth plugin's HTTP middleware with a
// remembered JWT, in front of a handler that does nothing: the plugin's
// share of a call made with an OAuth access token.
func BenchmarkMiddlewareJWT(b *testing.B) {
	as := authServer.Get(b)
	const resource = "http://127.0.0.1:8/mcp"
	rs := newRS(b, oauth.Config{Resource: resource, Issuer: as.Issuer()})
	h, req := cachedJWTMiddleware(b, rs, as.ClientCredentials(b, resource, readScope))
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		w.Code = 0
		h.ServeHTTP(w, req)
		if w.Code != 0 {
			b.Fatalf("status %d", w.Code)
		}
	}
}
