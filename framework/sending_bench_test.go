package framework_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// BenchmarkSendNotification sends progress notifications from a server
// session to an in-memory client: with the bare SDK server, with a
// hookflow server and no hooks on notifications:from-server (the flow is
// skipped), and with one hook (the flow runs).
func BenchmarkSendNotification(b *testing.B) {
	variants := []struct {
		name  string
		serve func(b *testing.B, t mcp.Transport) *mcp.ServerSession
	}{
		{"sdk", func(b *testing.B, t mcp.Transport) *mcp.ServerSession {
			ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
			if err != nil {
				b.Fatal(err)
			}
			return ss
		}},
		{"hookflow/hooks=0", func(b *testing.B, t mcp.Transport) *mcp.ServerSession {
			return hookflowSession(b, t, 0)
		}},
		{"hookflow/hooks=1", func(b *testing.B, t mcp.Transport) *mcp.ServerSession {
			return hookflowSession(b, t, 1)
		}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			st, ct := mcp.NewInMemoryTransports()
			ss := v.serve(b, st)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
			p := &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 1}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := ss.NotifyProgress(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func hookflowSession(b *testing.B, t mcp.Transport, hooks int) *mcp.ServerSession {
	srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	for range hooks {
		if err := srv.Hook(flows.On(stages.BeforeExecute, func(flows.ServerNotification) error { return nil }).Named("nop")); err != nil {
			b.Fatal(err)
		}
	}
	ss, err := srv.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	return ss
}
