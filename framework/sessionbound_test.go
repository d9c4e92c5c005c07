package framework_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// TestSessionsBounded opens sessions up to Options.MaxSessions and checks
// that one more initialize is answered 503 with Retry-After and opens
// nothing, that the open sessions are still served, and that a session
// ended by its client makes room for a new one.
func TestSessionsBounded(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "bounded", Version: "1"}, &framework.Options{MaxSessions: 3})
	addEntities(t, srv)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	var open []*httpSession
	for range 3 {
		open = append(open, newHTTPSession(t, h, nil))
	}
	init := (&httpSession{h: h}).post(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"late","version":"1"}}}`)
	if init.Code != http.StatusServiceUnavailable || init.Header().Get("Retry-After") == "" || init.Header().Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize past the bound: %d, Retry-After %q, session %q; want 503 with Retry-After and no session",
			init.Code, init.Header().Get("Retry-After"), init.Header().Get("Mcp-Session-Id"))
	}
	if n := countSessions(srv); n != 3 {
		t.Fatalf("%d sessions after a refused initialize, want 3", n)
	}
	if rec := open[0].post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); rec.Code != http.StatusOK {
		t.Fatalf("an open session's request: %d %s", rec.Code, rec.Body)
	}

	// The client ends a session: there is room again.
	del := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/mcp", nil)
	del.Header.Set("Mcp-Session-Id", open[0].sid)
	del.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	del.RemoteAddr = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, del)
	if rec.Code/100 != 2 {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
	}
	newHTTPSession(t, h, nil)
}

func countSessions(srv *framework.Server) int {
	n := 0
	for range srv.SDK().Sessions() {
		n++
	}
	return n
}
