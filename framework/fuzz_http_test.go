package framework_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// The HTTP edge's properties, for every request a peer can send:
//
//   - the server neither panics nor dies (a fatal error ends the fuzzer);
//   - it answers with a status in edgeStatuses;
//   - serving it allocates at most edgeAllocPerByte times the bytes the
//     peer really sent, plus edgeAllocBase: never by a length the peer
//     only declared.
const (
	edgeAllocPerByte = 64
	edgeAllocBase    = 2 << 20
	// edgeMaxBody is the per-body limit of the fuzzed server: small, so
	// that inputs can cross it.
	edgeMaxBody = 64 << 10
)

var edgeStatuses = map[int]bool{
	http.StatusOK: true, http.StatusAccepted: true, http.StatusBadRequest: true,
	http.StatusNotFound: true, http.StatusMethodNotAllowed: true, http.StatusNotAcceptable: true,
	http.StatusRequestEntityTooLarge: true, http.StatusUnsupportedMediaType: true,
	http.StatusServiceUnavailable: true,
}

// truncatedBody is a body that ends before its declared length, as a
// connection closed mid-body reads.
type truncatedBody struct{ r io.Reader }

func (b truncatedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// edgeSeeds are the known crashers and the shapes near them: declared
// lengths far past the bytes, chunked bodies (no declared length),
// truncated bodies, batches, deep nesting and many keys.
func edgeSeeds() []struct {
	body     string
	declared int64
	mode     byte
} {
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`
	}
	var keys strings.Builder
	keys.WriteString("{")
	for i := 2000; i > 0; i-- {
		if i < 2000 {
			keys.WriteString(",")
		}
		keys.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	keys.WriteString(`,"text":"x"}`)
	return []struct {
		body     string
		declared int64
		mode     byte
	}{
		{call(`{"text":"hi"}`), 0, 0},
		{call(`{"text":"hi"}`), 1 << 36, 0},   // declares 64 GiB
		{call(`{"text":"hi"}`), 1<<36 + 7, 2}, // declares 64 GiB, ends early
		{call(`{"text":"hi"}`), -1, 1},        // chunked
		{call(`{"text":"` + strings.Repeat("a", edgeMaxBody) + `"}`), -1, 1},
		{call(`{"text":"` + strings.Repeat("a", edgeMaxBody) + `"}`), 0, 0},
		{`[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 50) + `{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 0, 0},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 0, 0},
		{`[]`, 0, 0},
		{call(strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)), 0, 0},
		{strings.Repeat(`[`, 20000), 0, 0},
		{call(keys.String()), 0, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`, 0, 0},
		{`not json`, 0, 0},
		{``, 0, 0},
	}
}

// FuzzHTTPEdge sends whatever a peer could in one POST, body and declared
// length and framing, to a stateless server's streamable HTTP handler with
// a 64 KiB body limit, and checks the edge's properties (above).
func FuzzHTTPEdge(f *testing.F) {
	for _, s := range edgeSeeds() {
		f.Add([]byte(s.body), s.declared, s.mode)
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "edge", Version: "1"}, nil)
	addEntities(f, srv)
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: edgeMaxBody})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, declared int64, mode byte) {
		var r io.Reader = bytes.NewReader(body)
		switch mode % 3 {
		case 1: // chunked: the length is not declared
			declared = -1
		case 2: // the connection ends before the declared length
			if declared <= int64(len(body)) {
				declared = int64(len(body)) + 1
			}
			r = truncatedBody{r}
		default:
			if declared <= 0 {
				declared = int64(len(body))
			}
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", io.NopCloser(r))
		req.ContentLength = declared
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.RemoteAddr = "127.0.0.1:1234"
		rec := httptest.NewRecorder()

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		h.ServeHTTP(rec, req)
		runtime.ReadMemStats(&after)

		if !edgeStatuses[rec.Code] {
			t.Errorf("status %d for a %d-byte body declaring %d: %.200s", rec.Code, len(body), declared, rec.Body)
		}
		if grew, limit := after.TotalAlloc-before.TotalAlloc, uint64(edgeAllocPerByte*len(body)+edgeAllocBase); grew > limit {
			t.Errorf("a %d-byte body declaring %d allocated %d bytes; want ≤ %d", len(body), declared, grew, limit)
		}
	})
}
