package console_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
)

// BenchmarkCallTool measures one tools/call over an in-memory transport
// on a server with the test tools, without the console ("off") and with
// it and nobody watching ("on"): its two hooks, one clock read per hook
// call and step, the hand-off to its goroutine (whose work, redaction
// and the ring, runs beside the call). "on+results" also encodes each
// result (Config.Results).
func BenchmarkCallTool(b *testing.B) {
	for _, v := range []struct {
		name    string
		console *console.Config
	}{
		{"console=off", nil},
		{"console=on", &console.Config{Token: token, Redact: []string{"password"}}},
		{"console=on+results", &console.Config{Token: token, Redact: []string{"password"}, Results: true}},
	} {
		b.Run(v.name, func(b *testing.B) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			if err := plugintest.AddTools(srv, ""); err != nil {
				b.Fatal(err)
			}
			if v.console != nil {
				c := console.New(*v.console)
				b.Cleanup(func() { _ = c.Close(context.Background()) })
				if err := srv.Use(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := srv.Start(); err != nil {
				b.Fatal(err)
			}
			cs := plugintest.ConnectServer(b, srv)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: plugintest.ToolEcho, Arguments: map[string]any{"text": "bench"}}
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatalf("res=%v err=%v", res, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
