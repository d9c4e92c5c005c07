package streamable_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/streamable"
)

// TestOriginChecked checks that a browser's request from an origin the
// server does not allow is refused 403 on every method, and that a
// request without Origin (a client outside a browser), a same-origin one,
// an allowed one and, on a server listening on loopback, one from a
// loopback page (the MCP Inspector's) are let through.
func TestOriginChecked(t *testing.T) {
	allowing := http.NewCrossOriginProtection()
	if err := allowing.AddTrustedOrigin("https://app.example"); err != nil {
		t.Fatal(err)
	}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name   string
		local  string // the address the request reached
		host   string
		header map[string]string
		cop    *http.CrossOriginProtection
		refuse bool
	}{
		{name: "no origin", local: "127.0.0.1:3000", host: "localhost:3000"},
		{name: "inspector page on loopback", local: "127.0.0.1:3000", host: "localhost:3000", header: map[string]string{"Origin": "http://localhost:6274", "Sec-Fetch-Site": "same-site"}},
		{name: "loopback IP page on loopback", local: "[::1]:3000", host: "[::1]:3000", header: map[string]string{"Origin": "http://127.0.0.1:6274"}},
		{name: "same origin", local: "10.0.0.1:443", host: "mcp.example", header: map[string]string{"Origin": "https://mcp.example"}},
		{name: "allowed origin", local: "10.0.0.1:443", host: "mcp.example", cop: allowing, header: map[string]string{"Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"}},
		{name: "foreign origin on loopback", local: "127.0.0.1:3000", host: "localhost:3000", header: map[string]string{"Origin": "https://evil.example"}, refuse: true},
		{name: "foreign origin", local: "10.0.0.1:443", host: "mcp.example", header: map[string]string{"Origin": "https://evil.example"}, refuse: true},
		{name: "loopback page, server not on loopback", local: "10.0.0.1:443", host: "mcp.example", header: map[string]string{"Origin": "http://localhost:6274"}, refuse: true},
		{name: "null origin", local: "127.0.0.1:3000", host: "localhost:3000", header: map[string]string{"Origin": "null"}, refuse: true},
		{name: "cross-site without origin", local: "10.0.0.1:443", host: "mcp.example", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, refuse: true},
	} {
		h := streamable.New(streamable.Options{Server: testServer(), Host: &testHost{}, CrossOriginProtection: tc.cop})
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body := ""
			if method == http.MethodPost {
				body = ping
			}
			req := httptest.NewRequest(method, "http://"+tc.host+"/mcp", strings.NewReader(body))
			local, err := net.ResolveTCPAddr("tcp", tc.local)
			if err != nil {
				t.Fatal(err)
			}
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if refused := rec.Code == http.StatusForbidden; refused != tc.refuse {
				t.Errorf("%s, %s: %d %s, want refused %v", tc.name, method, rec.Code, strings.TrimSpace(rec.Body.String()), tc.refuse)
			}
		}
	}
}
