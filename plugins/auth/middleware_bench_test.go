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
	p := auth.New(auth.Config{Tokens: []auth.Token{{Token: "tok-bench-0123456789abcdef", User: "ann", Scopes: []string{"mcp"}}}, Scopes: []string{"mcp"}})
	mw, err := p.Middleware()
	if err != nil {
		b.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sdkauth.TokenInfoFromContext(r.Context()) == nil || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", http.NoBody)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", "6YQ2KXG4N3VJ5ZQW")
	req.Header.Set("Authorization", "Bearer tok-bench-0123456789abcdef")
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

// nopWriter is a ResponseWriter that keeps the status only.
type nopWriter struct {
	h    http.Header
	code int
}

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(code int)        { w.code = code }
