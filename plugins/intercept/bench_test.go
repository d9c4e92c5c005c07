package intercept_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// BenchmarkRemoteValidator measures a tools/call from an in-memory client
// to a hookflow server with one remote validator on the request — the test
// host, a separate process, over loopback streamable HTTP with a bearer
// token (or over stdio) — against the same call to the same server without
// it. Each iteration makes one call of each, alternating which goes first,
// so that both see the same machine; it reports the median latency of each
// (base-p50-µs, p50-µs) and their difference (added-p50-µs), and the 99th
// percentiles.
func BenchmarkRemoteValidator(b *testing.B) {
	for _, kind := range kinds {
		b.Run(string(kind), func(b *testing.B) {
			base := newBenchServer(b, nil)
			h := startHost(b, kind, "g", "allow")
			p := intercept.New(intercept.Config{Servers: []intercept.Server{h},
				// One validator, on the request of tools/call only.
				Policy: []intercept.Policy{{Interceptor: "allow", Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}}}}})
			b.Cleanup(func() { _ = p.Close() })
			guarded := newBenchServer(b, p)
			for range 50 {
				base()
				guarded() // warm up the connections
			}
			lb := make([]time.Duration, 0, b.N)
			lg := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					lb = append(lb, base())
					lg = append(lg, guarded())
				} else {
					lg = append(lg, guarded())
					lb = append(lb, base())
				}
			}
			b.StopTimer()
			slices.Sort(lb)
			slices.Sort(lg)
			p50 := func(l []time.Duration) float64 { return float64(l[len(l)/2].Nanoseconds()) / 1e3 }
			p99 := func(l []time.Duration) float64 { return float64(l[len(l)*99/100].Nanoseconds()) / 1e3 }
			b.ReportMetric(p50(lb), "base-p50-µs")
			b.ReportMetric(p50(lg), "p50-µs")
			b.ReportMetric(p50(lg)-p50(lb), "added-p50-µs")
			b.ReportMetric(p99(lb), "base-p99-µs")
			b.ReportMetric(p99(lg), "p99-µs")
		})
	}
}

// newBenchServer returns a function that makes one echo call to a new
// server with plugin p (none when nil) and returns its latency.
func newBenchServer(b *testing.B, p framework.Plugin) func() time.Duration {
	srv := framework.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	if err := plugintest.AddTools(srv, ""); err != nil {
		b.Fatal(err)
	}
	if p != nil {
		if err := srv.Use(p); err != nil {
			b.Fatal(err)
		}
	}
	cs := plugintest.ConnectServer(b, srv)
	params := &mcp.CallToolParams{Name: plugintest.ToolEcho, Arguments: map[string]any{"text": "hi"}}
	return func() time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
		return time.Since(t0)
	}
}
