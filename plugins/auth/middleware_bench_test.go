package auth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/plugins/auth"
)

// BenchmarkMiddleware measures the plugin's HTTP middleware on a request
// with a static token (Config.Tokens) in front of a handler that does
// nothing: the token check, the request the SDK's check derives, and the
// copy without the Authorization header.
func BenchmarkMiddleware(b *testing.B) {
	h, req := staticMiddleware(b, nil)
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		w.code = 0
		h.ServeHTTP(w, req)
		if w.code != 0 {
			b.Fatalf("status %d", w.code)
		}
	}
}

// staticMiddleware returns the middleware checking one static token in
// front of a handler that answers 418 unless it sees the token's info,
// the other headers and no Authorization header, then calls also unless
// it is nil; and a request carrying the token.
func staticMiddleware(tb testing.TB, also func(*http.Request)) (http.Handler, *http.Request) {
	tb.Helper()
	p := auth.New(auth.Config{Tokens: []auth.Token{{Token: "tok-bench-0123456789abcdef", User: "ann", Scopes: []string{"mcp"}}}, Scopes: []string{"mcp"}})
	mw, err := p.Middleware()
	if err != nil {
		tb.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sdkauth.TokenInfoFromContext(r.Context()) == nil || r.Header.Get("Authorization") != "" || r.Header.Get("Mcp-Session-Id") == "" {
			w.WriteHeader(http.StatusTeapot)
		}
		if also != nil {
			also(r)
		}
	}))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", http.NoBody)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", "6YQ2KXG4N3VJ5ZQW")
	req.Header.Set("Authorization", "Bearer tok-bench-0123456789abcdef")
	return h, req
}

// nopWriter is a ResponseWriter that keeps the status only.
type nopWriter struct {
	h    http.Header
	code int
}

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(code int)        { w.code = code }

// TestMiddlewareAllocs guards what the middleware allocates for a request
// with a static token: the SDK's check (the token's fields, the request
// and context carrying the TokenInfo), the challenge writer, and the
// copy of the request without its Authorization header.
func TestMiddlewareAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	h, req := staticMiddleware(t, nil)
	w := &nopWriter{h: http.Header{}}
	got := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, req) })
	if w.code != 0 {
		t.Fatalf("status %d", w.code)
	}
	if got != 9 {
		t.Errorf("%v allocations a request, want 9", got)
	}
	h, req = staticMiddleware(t, func(r *http.Request) { r.Header.Add("Accept", "text/plain") })
	h.ServeHTTP(w, req)
	if v := req.Header.Values("Accept"); len(v) != 1 || req.Header.Get("Authorization") == "" {
		t.Errorf("the caller's request has Accept %q and Authorization %q: the handler's copy changed it", v, req.Header.Get("Authorization"))
	}
}
