package guidance_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// BenchmarkCallTool measures one tools/call round trip over in-memory
// transports (client included): without the plugin; with the plugin
// attached and no guidance for the tool (its hooks run and find nothing);
// and with start and end guidance for the tool, composed once and then
// served from the cache.
func BenchmarkCallTool(b *testing.B) {
	end := inline("end", guidance.TypeAction, guidance.End, guidance.Should, "Offer to list the notes.")
	end.On = guidance.Tool("save_note")
	start := inline("start", guidance.TypeAction, guidance.Start, guidance.Must, "Confirm the title.")
	start.On = guidance.Tool("save_note")
	other := inline("other", guidance.TypeAction, guidance.End, guidance.May, "Not for save_note.")
	other.On = guidance.Tool("other")
	variants := []struct {
		name    string
		plugins func() []framework.Plugin
	}{
		{"none", func() []framework.Plugin { return nil }},
		{"guidance/idle", func() []framework.Plugin {
			return []framework.Plugin{guidance.New(guidance.Config{Hooks: []guidance.Hook{other}})}
		}},
		{"guidance/start+end", func() []framework.Plugin {
			return []framework.Plugin{guidance.New(guidance.Config{Hooks: []guidance.Hook{start, end}})}
		}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "save_note"}, saveNote); err != nil {
				b.Fatal(err)
			}
			if err := srv.Use(v.plugins()...); err != nil {
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
			params := &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "milk"}}
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatalf("%v %v", res, err)
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
