package sessiongate_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// BenchmarkCallTool measures one tools/call round trip over in-memory
// transports (client included): without the gate; with the gate and a
// tool it does not gate (no store call); and with a gated tool in a
// working session, its state in memory or in Redis (one script per call).
func BenchmarkCallTool(b *testing.B) {
	gate := func(store func(*testing.B) sessiongate.Store) func(*testing.B) []framework.Plugin {
		return func(b *testing.B) []framework.Plugin {
			return []framework.Plugin{sessiongate.New(sessiongate.Config{Requires: []string{"work"}, Store: store(b)})}
		}
	}
	memory := func(*testing.B) sessiongate.Store { return sessiongate.NewMemory(nil) }
	variants := []struct {
		name    string
		tool    string
		plugins func(*testing.B) []framework.Plugin
	}{
		{"none", "work", func(*testing.B) []framework.Plugin { return nil }},
		{"gate/ungated", "free", gate(memory)},
		{"gate/memory", "work", gate(memory)},
		{"gate/redis", "work", gate(func(b *testing.B) sessiongate.Store { return newRedisStore(b, redisServer.Addr(b), time.Minute) })},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			for _, name := range []string{"session_init", "work", "free"} {
				if err := framework.AddToolFunc(srv, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			if err := srv.Use(v.plugins(b)...); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(ctx, st, nil); err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
			for _, name := range []string{"session_init", v.tool} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", name, res, err)
				}
			}
			params := &mcp.CallToolParams{Name: v.tool, Arguments: map[string]any{}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
