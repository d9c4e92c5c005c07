package framework_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/stages"
)

// TestNotificationWithoutStream: a notification to a streamable HTTP
// client that keeps no GET stream open (as many clients do) is counted,
// logged once at debug level, and is no error: not a warning per
// notification, not a failed run for hooks and audit.
func TestNotificationWithoutStream(t *testing.T) {
	logs := &plugintest.Buffer{}
	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &framework.Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	var mu sync.Mutex
	var errs []error
	runs := 0
	if err := srv.Hook(flows.Hook{Flow: flows.NotificationsFromServer, Stage: stages.Finally, Name: "outcome", Fn: func(c *flows.Context) error {
		mu.Lock()
		defer mu.Unlock()
		runs++
		if c.Err() != nil {
			errs = append(errs, c.Err())
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	post := func(body, session string) *httptest.ResponseRecorder {
		return plugintest.Record(h, body, inSession(session))
	}
	rec := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "")
	id := rec.Header().Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("no session: %d %s", rec.Code, rec.Body)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id)
	// Each change of the server's tools tells the session: it has no
	// stream open to hear it.
	for i := range 3 {
		name := "t" + string(rune('a'+i))
		if err := framework.AddTool(srv, framework.Tool[struct{}, map[string]any, *mcp.CallToolResult]{
			Tool: &mcp.Tool{Name: name},
			Execute: func(struct{}, context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			},
		}); err != nil {
			t.Fatal(err)
		}
		want := uint64(i + 1)
		deadline := time.Now().Add(time.Minute) // a bound on a hang
		for srv.Unstreamed() < want {
			if time.Now().After(deadline) {
				t.Fatalf("Unstreamed = %d, want %d", srv.Unstreamed(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if runs == 0 || len(errs) > 0 {
		t.Errorf("runs %d, errors %v; want runs without errors", runs, errs)
	}
	out := logs.String()
	if strings.Contains(out, "level=WARN") || strings.Count(out, "found no stream open") != 1 {
		t.Errorf("log:\n%s\nwant one debug record and no warning", out)
	}
}
