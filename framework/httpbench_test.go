package framework_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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
		{"hookflow-transport/hooks=0", func() http.Handler { return hookflow(0) }},
		{"hookflow-transport/hooks=10", func() http.Handler { return hookflow(10) }},
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

// TestServeHTTPAllocations keeps a tools/call over HTTP through hookflow,
// with ten hooks, from allocating more than the same call on the plain
// SDK: hookflow's own path (compiled validation, the body read once and
// decoded by the SDK alone) costs less than the SDK's typed tool path.
func TestServeHTTPAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	sdk := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	tool := benchTool
	mcp.AddTool(sdk, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (*mcp.CallToolResult, benchOut, error) {
		return nil, benchGreet(in), nil
	})
	srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (benchOut, error) {
		return benchGreet(in), nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "h" + strconv.Itoa(i), Fn: func(*flows.Context) error { return nil }}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(h http.Handler) float64 {
		s := newHTTPSession(t, h, nil)
		return testing.AllocsPerRun(200, func() { s.call(t, 1) })
	}
	base := allocs(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, nil))
	got := allocs(h)
	t.Logf("allocations per call: SDK %.0f, hookflow with 10 hooks %.0f", base, got)
	if got > base {
		t.Errorf("hookflow allocates %.0f times per call, the SDK %.0f", got, base)
	}
}

func TestReadBody(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name      string
		max       int64
		whole     bool
		wantBytes string
	}{
		{"unbounded", -1, true, body},
		{"within max", int64(len(body)), true, body},
		{"declared past max", 10, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			data, whole, err := framework.ReadBody(r, tc.max)
			if err != nil || whole != tc.whole || string(data) != tc.wantBytes {
				t.Fatalf("ReadBody = %q, %v, %v; want %q, %v", data, whole, err, tc.wantBytes, tc.whole)
			}
			if whole {
				again, _, _ := framework.ReadBody(r, tc.max)
				if &again[0] != &data[0] {
					t.Error("the second ReadBody read the body again")
				}
			}
			rest, err := io.ReadAll(r.Body)
			if err != nil || string(rest) != body {
				t.Errorf("r.Body reads %q, %v; want the whole body", rest, err)
			}
		})
	}
}

// TestHookflowTransportAllocations keeps a tools/call over hookflow's
// transport cheaper than over the SDK's, on the same server: fewer
// allocations and at most 100 (the SDK's handler makes 135), and no more
// than 16 KiB past the 64 KiB that the SDK's session spends on its own two
// unmarshals of the call (params and _meta), which no transport can avoid.
func TestHookflowTransportAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	// sdk serves the server's SDK server on the SDK's handler instead.
	handler := func(sdk bool) http.Handler {
		srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		tool := benchTool
		if err := framework.AddToolFunc(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (benchOut, error) {
			return benchGreet(in), nil
		}); err != nil {
			t.Fatal(err)
		}
		if sdk {
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.SDK() }, nil)
		}
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	measure := func(sdk bool) (allocs, bytes int64) {
		s := newHTTPSession(t, handler(sdk), nil)
		s.call(t, 1)
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.call(t, i+2)
			}
		})
		return r.AllocsPerOp(), r.AllocedBytesPerOp()
	}
	sdkAllocs, sdkBytes := measure(true)
	allocs, bytes := measure(false)
	t.Logf("per call: SDK transport %d allocations, %d B; hookflow's %d allocations, %d B", sdkAllocs, sdkBytes, allocs, bytes)
	const floor = 2 * 32 << 10 // the session's two stream decoders
	if allocs >= sdkAllocs || allocs > 100 {
		t.Errorf("hookflow's transport allocates %d times per call, want fewer than the SDK's %d and at most 100", allocs, sdkAllocs)
	}
	// The test's own request and recorder cost about 6 KiB of it.
	if bytes > floor+16<<10 {
		t.Errorf("hookflow's transport allocates %d B per call, want at most %d", bytes, floor+16<<10)
	}
}
