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
