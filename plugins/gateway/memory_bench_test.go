package gateway_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// BenchmarkSessionMemory opens 32 client sessions over stateful
// streamable HTTP to a gateway in front of a stdio upstream, each listing
// the tools once and then left idle, and reports what one client session
// costs: the heap in use, and the resident memory of the upstream
// processes the gateway started. With a session per client (the default)
// each client session runs one upstream process; Shared puts every client
// on the gateway's own session, and so one process. The heap counts the
// clients' side too (they run in the benchmark's process): the "server"
// variant, a hookflow server with one tool and no gateway, is that share
// and the server session's, to subtract.
//
//	go test -run '^$' -bench SessionMemory -benchtime 1x -count 5 ./plugins/gateway/
func BenchmarkSessionMemory(b *testing.B) {
	const sessions = 32
	for _, variant := range []string{"server", "per-session", "shared"} {
		b.Run(variant, func(b *testing.B) {
			for b.Loop() {
				srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
				gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{stdio("up")}})
				if variant == "shared" {
					up := stdio("up")
					up.Shared = true
					gw = gateway.New(gateway.Config{Upstreams: []gateway.Upstream{up}})
				}
				if variant == "server" {
					type in struct {
						Text string `json:"text"`
					}
					if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (in, error) { return a, nil }); err != nil {
						b.Fatal(err)
					}
				} else if err := srv.Use(gw); err != nil {
					b.Fatal(err)
				}
				h, err := srv.HTTPHandler(nil)
				if err != nil {
					b.Fatal(err)
				}
				hs := httptest.NewServer(h)
				ctx := context.Background()
				heap0, rss0 := heapInUse(), childrenRSS()
				var open []*mcp.ClientSession
				for range sessions {
					cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
						Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := cs.ListTools(ctx, nil); err != nil {
						b.Fatal(err)
					}
					open = append(open, cs)
				}
				heap1, rss1 := heapInUse(), childrenRSS()
				b.ReportMetric(float64(heap1-heap0)/sessions/1024, "heap-KiB/session")
				b.ReportMetric(float64(rss1-rss0)/sessions/1024, "upstream-RSS-KiB/session")
				for _, cs := range open {
					_ = cs.Close()
				}
				hs.Close()
				_ = gw.Close()
			}
		})
	}
}

// heapInUse is the heap in use after a collection: the clients' share
// included, which is small beside the gateway's.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// childrenRSS is the resident memory of this process's children, in
// bytes (0 where /proc is not there).
func childrenRSS() int64 {
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var sum int64
	for _, stat := range dirs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// Fields after the command name: state, ppid, …
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 22 || f[1] != self {
			continue
		}
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		sum += pages * int64(os.Getpagesize())
	}
	return sum
}
