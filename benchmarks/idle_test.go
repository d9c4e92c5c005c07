package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// idleSessions is how many stateful sessions BenchmarkIdleSession opens
// and leaves idle per round.
const idleSessions = 1000

// BenchmarkIdleSession measures what an idle stateful session costs a
// server: it opens idleSessions sessions (initialize, then
// notifications/initialized, on protocol 2025-11-25), leaves them idle,
// and reports the growth of the live heap (runtime.MemStats.HeapAlloc
// after a GC) and of goroutine stacks (StackInuse) per session, and
// goroutines per session. The requests go to the handler in-process, with
// no connection, so no connection buffer is counted. Peers: go-sdk's
// StreamableHTTPHandler (sdk), hookflow on its own transport (hookflow-0,
// the only one) and its SDK server on the SDK's handler
// (hookflow-0-sdkhttp), and mcp-go (mcpgo-10).
//
//	go test -run '^$' -bench IdleSession -benchtime 1x -count 5 .
func BenchmarkIdleSession(b *testing.B) {
	for _, peer := range []string{"sdk", "hookflow-0", "hookflow-0-sdkhttp", "mcpgo-10"} {
		b.Run(peer, func(b *testing.B) {
			var heap, stack, goroutines float64
			rounds := 0
			for b.Loop() {
				h, err := idleHandler(peer)
				if err != nil {
					b.Fatal(err)
				}
				before := settled()
				sids := make([]string, 0, idleSessions)
				for range idleSessions {
					sid, err := openSession(h)
					if err != nil {
						b.Fatalf("%s: %v", peer, err)
					}
					sids = append(sids, sid)
				}
				after := settled()
				heap += float64(after.heap) - float64(before.heap)
				stack += float64(after.stack) - float64(before.stack)
				goroutines += float64(after.goroutines - before.goroutines)
				rounds++
				for _, sid := range sids {
					if rec := send(h, http.MethodDelete, sid, ""); rec.Code >= 300 {
						b.Fatalf("%s: DELETE: %d: %s", peer, rec.Code, rec.Body)
					}
				}
			}
			n := float64(rounds * idleSessions)
			b.ReportMetric(heap/n, "heap-B/session")
			b.ReportMetric(stack/n, "stack-B/session")
			b.ReportMetric(goroutines/n, "goroutines/session")
		})
	}
}

// idleHandler is peer's stateful handler; hookflow-0-sdkhttp is
// hookflow-0's SDK server on the SDK's StreamableHTTPHandler.
func idleHandler(peer string) (http.Handler, error) {
	if peer != "hookflow-0-sdkhttp" {
		return handler(peer, false)
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "greet", Description: "greets", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (greetOut, error) { return greet(in), nil }); err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.SDK() }, &mcp.StreamableHTTPOptions{SessionTimeout: time.Hour}), nil
}

// openSession initializes a session on h and returns its ID.
func openSession(h http.Handler) (string, error) {
	rec := send(h, http.MethodPost, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	sid := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || sid == "" || !strings.Contains(rec.Body.String(), `"protocolVersion":"2025-11-25"`) {
		return "", fmt.Errorf("initialize: %d, session %q: %s", rec.Code, sid, rec.Body)
	}
	if rec := send(h, http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: %d: %s", rec.Code, rec.Body)
	}
	return sid, nil
}

// send sends h one request and returns its recorded answer.
func send(h http.Handler, method, sid, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// memory is the live heap, the goroutine stacks and the goroutine count.
type memory struct {
	heap, stack uint64
	goroutines  int
}

// settled returns memory once the goroutine count has stopped changing
// (a session's goroutines start, and a deleted one's end, after its
// request's answer), after a GC.
func settled() memory {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memory{heap: ms.HeapAlloc, stack: ms.StackInuse, goroutines: runtime.NumGoroutine()}
}
