package framework_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// TestRunOverStreams serves one session with Server.Run over a pair of
// pipes, as over stdio, until the client disconnects.
func TestRunOverStreams(t *testing.T) {
	rec := &recorder{}
	srv := newRecordingServer(t, rec)
	clientRead, serverWrite := io.Pipe()
	serverRead, clientWrite := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &mcp.IOTransport{Reader: serverRead, Writer: serverWrite}) }()

	cs, err := mcp.NewClient(clientImpl(), nil).Connect(ctx, &mcp.IOTransport{Reader: clientRead, Writer: clientWrite}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "piped"}})
	if err != nil || textOf(t, res) != `{"echo":"piped"}` {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if got := stagesOf(rec.take(), flows.ToolsCallTool); !equal(got, okStages) {
		t.Errorf("stages = %v, want %v", got, okStages)
	}
	if cs.InitializeResult().Capabilities.Experimental["hooks"] == nil {
		t.Error("no experimental.hooks capability")
	}
	// Run returns once the client hangs up.
	_ = cs.Close()
	wait(t, done, "Run to return after the client disconnected")
}

// TestHTTPHandlerKeepsDNSRebindingProtection checks that the SDK's
// protection is on by default: a loopback server refuses a foreign Host.
func TestHTTPHandlerKeepsDNSRebindingProtection(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "http", Version: "1"}, nil)
	addEntities(t, srv)
	for _, opts := range []*mcp.StreamableHTTPOptions{nil, {Stateless: true}} {
		h, err := srv.HTTPHandler(opts)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example.com"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ts.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("stateless=%v: foreign Host got %d, want 403", opts != nil, resp.StatusCode)
		}
	}
}

// TestAllowedOrigins checks Options.AllowedOrigins: a listed origin's
// page may call the server, another's is refused 403 on POST and GET
// alike, a loopback page reaches a loopback server, and a client that
// sends no Origin is let through. An origin CrossOriginProtection cannot
// read, or one set next to a CrossOriginProtection, fails HTTPHandler.
func TestAllowedOrigins(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "http", Version: "1"}, &framework.Options{AllowedOrigins: []string{"https://app.example"}})
	addEntities(t, srv)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, tc := range []struct {
		method, origin string
		want           int
	}{
		{http.MethodPost, "", http.StatusOK},
		{http.MethodPost, "https://app.example", http.StatusOK},
		{http.MethodPost, "http://localhost:6274", http.StatusOK},
		{http.MethodPost, "https://evil.example", http.StatusForbidden},
		{http.MethodGet, "https://evil.example", http.StatusForbidden},
		{http.MethodGet, "https://app.example", http.StatusBadRequest}, // no session: past the origin check
	} {
		req, err := http.NewRequest(tc.method, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s from %q: %d, want %d", tc.method, tc.origin, resp.StatusCode, tc.want)
		}
	}
	bad := framework.NewServer(&mcp.Implementation{Name: "http", Version: "1"}, &framework.Options{AllowedOrigins: []string{"app.example"}})
	if _, err := bad.HTTPHandler(nil); err == nil {
		t.Error("an origin without a scheme was accepted")
	}
	if _, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{CrossOriginProtection: http.NewCrossOriginProtection()}); err == nil {
		t.Error("AllowedOrigins next to a CrossOriginProtection was accepted")
	}
}
