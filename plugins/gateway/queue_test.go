package gateway_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/stages"
)

// TestSlowClient: an upstream floods a call with progress notifications
// and log messages for a client that does not read. What the gateway
// holds for it stays bounded (the queue drops the oldest, where the SDK
// would queue every one); the drops are logged and counted; once the
// client reads, the call's result arrives, with the newest progress,
// and every notification was either received or counted as dropped.
func TestSlowClient(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { testSlowClient(t, tr.upstream(t, "up")) })
	}
}

func testSlowClient(t *testing.T, up gateway.Upstream) {
	const (
		// n progress notifications and as many log messages, each with
		// size bytes of text.
		n, size = 10_000, 2048
		// held bounds the heap the gateway may hold more than before the
		// call: where the SDK queued all 2n notifications (over 40 MiB),
		// the gateway's queue holds 1024 entries (2 MiB).
		held = 16 << 20
		// queueLimit is gateway.DefaultQueueLimit.
		queueLimit = 1024
	)
	answered, failed := make(chan struct{}, 1), make(chan error, 1)
	// A flood takes long under the race detector on a loaded machine: the
	// forwarded call's own bound must not be what the test measures.
	up.Timeout = 10 * time.Minute
	srv, _, logs := serveLogged(t, func(srv *framework.Server) {
		check(t, srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "answered",
			Fn: func(c *flows.Context) error {
				// The upstream's answer came after every notification of
				// the call: the gateway has read them all.
				answered <- struct{}{}
				return nil
			}}))
		// A call that fails never reaches afterExecute, and its error
		// cannot reach the client, which does not read: report it here
		// rather than wait for an answer that will not come.
		check(t, srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.OnError, Name: "failed",
			Fn: func(c *flows.Context) error {
				select {
				case failed <- c.Err():
				default:
				}
				return nil
			}}))
	}, up)
	var (
		mu                 sync.Mutex
		progress, messages int
		last               float64
	)
	g := newGate()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress++
			last = req.Params.Progress
		},
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			messages++
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	check(t, err)
	cs, err := c.Connect(t.Context(), gatedTransport{Transport: ct, g: g}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	check(t, err)
	t.Cleanup(func() { g.reopen(); cs.Close(); ss.Wait() })
	check(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}))

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g.shut()
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"n": n, "size": size}}
		p.SetProgressToken("flood")
		res, err := cs.CallTool(context.Background(), p)
		done <- outcome{res, err}
	}()
	select {
	case <-answered:
	case err := <-failed:
		t.Fatalf("the gateway failed the flood: %v", err)
	case o := <-done:
		t.Fatalf("flood ended unanswered: %v, %v", o.res, o.err)
	}
	// The gateway may still be handling what it read: wait, for at most
	// a minute (a bound on a hang), for the heap to come under the bound.
	var heap uint64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if heap = ms.HeapAlloc; heap < before.HeapAlloc+held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the heap grew from %d MiB to %d MiB while the client did not read", before.HeapAlloc>>20, heap>>20)
		}
	}
	t.Logf("heap %d MiB before the call, %d MiB with the call's notifications held", before.HeapAlloc>>20, heap>>20)

	g.reopen()
	o := <-done
	if o.err != nil || text(o.res) != "flooded "+strconv.Itoa(n) {
		t.Fatalf("flood = %v, %v", o.res, o.err)
	}
	eventually(t, "every notification received or reported dropped", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return progress+messages+dropped(logs.String()) == 2*n && last == n
	})
	mu.Lock()
	defer mu.Unlock()
	// The queue's entries, the one being sent, and those the client's
	// transport was already reading when it stopped.
	if progress+messages > queueLimit+4 {
		t.Errorf("the client received %d notifications, more than the queue holds", progress+messages)
	}
	if !strings.Contains(logs.String(), "a client session reads too slowly") {
		t.Errorf("the first drop was not logged:\n%s", logs)
	}
}

// dropped sums the counts of the log's lines saying notifications to a
// slow client session were dropped.
func dropped(log string) int {
	total := 0
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `msg="gateway: dropped notifications to a slow client session"`) {
			continue
		}
		_, v, _ := strings.Cut(line, " dropped=")
		v, _, _ = strings.Cut(v, " ")
		d, _ := strconv.Atoi(v)
		total += d
	}
	return total
}

// gate holds the reads of a client's connection while it is shut: the
// client then reads nothing the server sends.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // closed while reads go on
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *gate) reopen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedTransport is a client transport whose connection reads through a
// gate.
type gatedTransport struct {
	mcp.Transport
	g *gate
}

func (t gatedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return gatedConn{Connection: c, g: t.g}, nil
}

type gatedConn struct {
	mcp.Connection
	g *gate
}

func (c gatedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := c.g.wait(ctx); err != nil {
		return nil, err
	}
	return c.Connection.Read(ctx)
}

// TestQueueLimit: with Config.QueueLimit, a client session that does
// not read gets at most that many of a flood's notifications; the others
// are counted in the upstream's Health and health report.
func TestQueueLimit(t *testing.T) {
	const n, limit = 1000, 10
	gw := gateway.New(gateway.Config{QueueLimit: limit, Upstreams: []gateway.Upstream{stdio("up")}})
	srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, &framework.Options{Logger: slog.New(slog.DiscardHandler)})
	check(t, srv.Use(gw))
	answered := make(chan struct{}, 1)
	check(t, srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "answered",
		Fn: func(*flows.Context) error { answered <- struct{}{}; return nil }}))
	check(t, srv.Start())
	t.Cleanup(func() { gw.Close() })
	var received atomic.Int64
	g := newGate()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { received.Add(1) },
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	check(t, err)
	cs, err := c.Connect(t.Context(), gatedTransport{Transport: ct, g: g}, nil)
	check(t, err)
	t.Cleanup(func() { g.reopen(); cs.Close(); ss.Wait() })

	g.shut()
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"n": n, "size": 0}}
		p.SetProgressToken("flood")
		_, err := cs.CallTool(context.Background(), p)
		done <- err
	}()
	select {
	case <-answered:
	case err := <-done:
		t.Fatalf("flood ended unanswered: %v", err)
	}
	g.reopen()
	check(t, <-done)
	eventually(t, "every progress notification received or counted as dropped", func() bool {
		return received.Load()+int64(gw.Health()[0].Dropped) == n
	})
	if got := received.Load(); got > limit+4 {
		t.Errorf("the client received %d progress notifications, more than the queue holds (%d)", got, limit)
	}
	rec := httptest.NewRecorder()
	gateway.Gateways{gw}.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if want := fmt.Sprintf(`"dropped":%d`, gw.Health()[0].Dropped); !strings.Contains(rec.Body.String(), want) {
		t.Errorf("health report %s, want %s", rec.Body, want)
	}

	bad := gateway.New(gateway.Config{QueueLimit: -1, Upstreams: []gateway.Upstream{stdio("up")}})
	srv = framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
	check(t, srv.Use(bad))
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), "Config.QueueLimit: must not be negative") {
		t.Errorf("Start with a negative QueueLimit: %v", err)
	}
}
