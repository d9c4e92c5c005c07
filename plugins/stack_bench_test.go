package plugins_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

type benchIn struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

type benchOut struct {
	Msg string `json:"msg"`
}

// benchSession drives a streamable HTTP handler in process with raw
// JSON-RPC POSTs as ann (protocol 2025-11-25, a session from initialize).
type benchSession struct {
	h   http.Handler
	sid string
}

func (s *benchSession) post(tb testing.TB, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+users[0].token)
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	req.RemoteAddr = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// BenchmarkStack measures one tools/call POST through the streamable HTTP
// handler of a server with each first-party plugin alone and with all four
// (auth with its scope challenge, ratelimit on memory, cache missing every
// call, audit to a discarding slog handler), against none. Each call has
// new arguments, so the cache always misses and stores.
func BenchmarkStack(b *testing.B) {
	newAudit := func(b *testing.B) *audit.Plugin {
		a := audit.New(audit.Config{Handler: slog.NewJSONHandler(io.Discard, nil)})
		b.Cleanup(func() { _ = a.Close(context.Background()) })
		return a
	}
	newAuth := func(*testing.B) *auth.Plugin {
		return auth.New(auth.Config{Verifier: verifier, Scopes: []string{"mcp"}, ScopeChallenge: true})
	}
	newLimit := func(*testing.B) *ratelimit.Plugin {
		return ratelimit.New(ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}})
	}
	newCache := func(*testing.B) *cache.Plugin { return cache.New(cache.Config{TTL: time.Hour}) }
	variants := []struct {
		name    string
		auth    bool
		plugins func(*testing.B) []framework.Plugin
	}{
		{"none", false, func(*testing.B) []framework.Plugin { return nil }},
		{"auth", true, func(b *testing.B) []framework.Plugin { return []framework.Plugin{newAuth(b)} }},
		{"ratelimit", false, func(b *testing.B) []framework.Plugin { return []framework.Plugin{newLimit(b)} }},
		{"cache", false, func(b *testing.B) []framework.Plugin { return []framework.Plugin{newCache(b)} }},
		{"audit", false, func(b *testing.B) []framework.Plugin { return []framework.Plugin{newAudit(b)} }},
		{"all", true, func(b *testing.B) []framework.Plugin {
			return []framework.Plugin{newAuth(b), newLimit(b), newCache(b), newAudit(b)}
		}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			plugins := v.plugins(b)
			if err := srv.Use(plugins...); err != nil {
				b.Fatal(err)
			}
			tool := &mcp.Tool{Name: "greet", Description: "greets", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
			if err := framework.AddToolFunc(srv, tool, func(_ context.Context, _ *mcp.CallToolRequest, in benchIn) (benchOut, error) {
				return benchOut{Msg: "hello " + in.Name}, nil
			}); err != nil {
				b.Fatal(err)
			}
			var h http.Handler
			var err error
			if v.auth {
				h, err = plugins[0].(*auth.Plugin).Handler(srv, &mcp.StreamableHTTPOptions{})
			} else {
				h, err = srv.HTTPHandler(nil)
			}
			if err != nil {
				b.Fatal(err)
			}
			s := &benchSession{h: h}
			rec := s.post(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
			if rec.Code != http.StatusOK {
				b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
			}
			s.sid = rec.Header().Get("Mcp-Session-Id")
			if rec := s.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
				b.Fatalf("initialized: %d %s", rec.Code, rec.Body)
			}
			call := func(i int) {
				n := strconv.Itoa(i)
				rec := s.post(b, `{"jsonrpc":"2.0","id":`+n+`,"method":"tools/call","params":{"name":"greet","arguments":{"name":"bench","n":`+n+`}}}`)
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`hello bench`)) {
					b.Fatalf("tools/call: %d %s", rec.Code, rec.Body)
				}
			}
			call(1)
			b.ReportAllocs()
			i := 1
			for b.Loop() {
				i++
				call(i)
			}
		})
	}
}
