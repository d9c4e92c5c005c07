package framework_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// httpSession drives a streamable HTTP handler in process, as a client
// would over the wire but without the network: raw JSON-RPC POSTs,
// protocol 2025-11-25, a session from initialize.
type httpSession struct {
	h   http.Handler
	sid string
	hdr http.Header
}

func newHTTPSession(tb testing.TB, h http.Handler, headers http.Header) *httpSession {
	tb.Helper()
	s := &httpSession{h: h, hdr: headers}
	rec := s.post(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if rec.Code != http.StatusOK {
		tb.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	s.sid = rec.Header().Get("Mcp-Session-Id")
	if rec := s.post(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); rec.Code != http.StatusAccepted {
		tb.Fatalf("initialized: %d %s", rec.Code, rec.Body)
	}
	return s
}

func (s *httpSession) post(tb testing.TB, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	for k, v := range s.hdr {
		req.Header[k] = v
	}
	req.RemoteAddr = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// call posts a tools/call of greet and checks its answer.
func (s *httpSession) call(tb testing.TB, id int) {
	rec := s.post(tb, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"greet","arguments":{"name":"bench","n":1}}}`)
	if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`hello bench`)) {
		tb.Fatalf("tools/call: %d %s", rec.Code, rec.Body)
	}
}

// BenchmarkServeHTTP measures one tools/call POST through the streamable
// HTTP handler, stateful and answered as an SSE stream (the SDK's
// defaults), in process: what the server spends on a call over HTTP, the
// network and a client aside.
func BenchmarkServeHTTP(b *testing.B) {
	hookflow := func(n int) http.Handler {
		srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		tool := benchTool
		if err := framework.AddToolFunc(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (benchOut, error) {
			return benchGreet(in), nil
		}); err != nil {
			b.Fatal(err)
		}
		spread := []stages.Stage{stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute, stages.AfterExecute, stages.Finally}
		for i := range n {
			if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: spread[i%len(spread)], Name: "h" + strconv.Itoa(i), Fn: func(*flows.Context) error { return nil }}); err != nil {
				b.Fatal(err)
			}
		}
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	variants := []struct {
		name string
		h    func() http.Handler
	}{
		{"sdk-direct", func() http.Handler {
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			tool := benchTool
			mcp.AddTool(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (*mcp.CallToolResult, benchOut, error) {
				return nil, benchGreet(in), nil
			})
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		}},
		{"hookflow/hooks=0", func() http.Handler { return hookflow(0) }},
		{"hookflow/hooks=10", func() http.Handler { return hookflow(10) }},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s := newHTTPSession(b, v.h(), nil)
			s.call(b, 1)
			b.ReportAllocs()
			i := 1
			for b.Loop() {
				i++
				s.call(b, i)
			}
		})
	}
}
