package framework_test

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// TestUnsentBoundedPerStream sends, from 20 clients that never read, a
// batch of 32 calls each answered with 256 KiB: the answers wait behind a
// write the client does not take. With the default bound
// (framework.DefaultMaxUnsentBytes) the streams are cut off and the heap
// comes back down once the calls have run; with no bound it holds what
// the write timeout (30 s) lets wait, megabytes per client.
//
// The measure is the live heap (marked by a collection), not what the
// process allocated, taken once the calls' goroutines have ended: a
// call's answer is built and delivered after its handler returns, so
// under load answers still in flight, or garbage of other goroutines,
// would count as held.
func TestUnsentBoundedPerStream(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 160 MiB of answers")
	}
	const (
		clients = 20
		calls   = 32
		size    = 256 << 10
	)
	cases := []struct {
		name     string
		max      int64 // Options.MaxUnsentBytes
		bounded  bool
		maxGrown uint64 // bounded: heap growth once the calls ran, at most
		minGrown uint64 // not bounded: at least
	}{
		{name: "default bound", max: 0, bounded: true, maxGrown: 24 << 20},
		{name: "no bound", max: -1, minGrown: 48 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int64
			srv := framework.NewServer(&mcp.Implementation{Name: "unsent", Version: "1"}, &framework.Options{MaxUnsentBytes: tc.max})
			type in struct{}
			type out struct {
				Text string `json:"text"`
			}
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "big"}, func(ctx context.Context, req *mcp.CallToolRequest, _ in) (out, error) {
				defer ran.Add(1)
				// The text is in the answer twice: as content and as
				// structured content.
				return out{Text: strings.Repeat("y", size/2)}, nil
			}); err != nil {
				t.Fatal(err)
			}
			h, err := srv.HTTPHandler(nil)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			const v = "2025-03-26"
			var batch strings.Builder
			batch.WriteByte('[')
			for i := range calls {
				if i > 0 {
					batch.WriteByte(',')
				}
				fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{}}}`, i+1)
			}
			batch.WriteByte(']')
			u, _ := url.Parse(ts.URL)

			var ids []string
			for range clients {
				ids = append(ids, open(t, ts.URL, v))
			}
			// The sessions are open: what the calls add is measured
			// from here.
			goroutines, before := runtime.NumGoroutine(), liveHeap()
			var conns []net.Conn
			var mu sync.Mutex
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for _, id := range ids {
				c, err := net.Dial("tcp", u.Host)
				if err != nil {
					t.Fatal(err)
				}
				// A small receive buffer: the kernel takes little of
				// what the server owes.
				_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				req := "POST / HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\n" +
					"Accept: application/json, text/event-stream\r\nMcp-Session-Id: " + id + "\r\n" +
					"Mcp-Protocol-Version: " + v + "\r\nContent-Length: " + fmt.Sprint(batch.Len()) + "\r\n\r\n" + batch.String()
				if _, err := c.Write([]byte(req)); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for ran.Load() < clients*calls {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d calls ran", ran.Load(), clients*calls)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The calls have run; their answers are written, waiting, or
			// dropped. The bound lets go of them within moments: the
			// calls' goroutines and the cut-off streams' connections
			// end. Without it they wait for the write timeout.
			if tc.bounded {
				settled(t, goroutines+2, 15*time.Second)
			}
			grown := liveHeap()
			grown -= min(before, grown)
			t.Logf("heap grew %.1f MiB", float64(grown)/(1<<20))
			if tc.bounded && grown > tc.maxGrown {
				t.Errorf("heap grew %d MiB, want at most %d MiB", grown>>20, tc.maxGrown>>20)
			}
			if !tc.bounded && grown < tc.minGrown {
				t.Errorf("heap grew %d MiB with no bound, want at least %d MiB: the test no longer makes answers wait", grown>>20, tc.minGrown>>20)
			}
		})
	}
}

// liveHeap returns the bytes of the heap objects a collection, run now,
// found reachable: garbage, and what goroutines allocate meanwhile, are
// not in it. It collects twice: what a sync.Pool held outlives one
// collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// settled waits up to d for the process's goroutines to be at most n,
// and logs how many are left when they are not.
func settled(t *testing.T, n int, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); runtime.NumGoroutine() > n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Logf("after %v, %d goroutines, want at most %d", d, runtime.NumGoroutine(), n)
			return
		}
	}
}
