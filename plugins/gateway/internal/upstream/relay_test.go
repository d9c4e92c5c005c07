package upstream_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// client is a client session connected in memory to a server session,
// keeping the progress tokens it received.
type client struct {
	ss *mcp.ServerSession
	mu sync.Mutex
	// progress holds the tokens of the progress notifications received.
	progress []any
}

func (c *client) tokens() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]any(nil), c.progress...)
}

func connectClient(t *testing.T) *client {
	t.Helper()
	ctx := context.Background()
	c := &client{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.ss = ss
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, r.Params.ProgressToken)
			c.mu.Unlock()
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
	})
	cl.AddRoots(&mcp.Root{URI: "file:///root"})
	// The latest version on which a server may send the client requests.
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return c
}

// TestRelayProgress has an upstream send progress with tokens of every
// kind, hostile ones among them: only the call's key reaches the client,
// with the client's own token, and each progress of the call restarts
// its timeout.
func TestRelayProgress(t *testing.T) {
	c := connectClient(t)
	var dropped atomic.Uint64
	r := &upstream.Relay{Session: c.ss, Out: upstream.NewQueues(16, slog.Default()), Dropped: &dropped, Log: slog.Default()}
	var progressed atomic.Int32
	ctx, up, end := r.Calls.Begin(context.Background(), c.ss, "client-token", func() { progressed.Add(1) })
	defer end()
	key := up.(string)
	_, quietUp, quietEnd := r.Calls.Begin(context.Background(), c.ss, nil, func() { progressed.Add(1) })
	defer quietEnd()
	for _, tok := range []any{nil, 1, 1.5, "", "hookflow-gw-99", key + "x", map[string]any{"k": key}, quietUp, key} {
		r.Progress(ctx, &mcp.ProgressNotificationClientRequest{Params: &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1}})
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(c.tokens()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := c.tokens(); len(got) != 1 || got[0] != "client-token" {
		t.Errorf("the client got progress tokens %v, want [client-token]", got)
	}
	if n := progressed.Load(); n != 2 {
		t.Errorf("the calls' timeouts restarted %d times, want 2", n)
	}
	if dropped.Load() != 0 {
		t.Errorf("%d dropped", dropped.Load())
	}
}

// TestRelayRoute has an upstream send its client requests: sampling and
// roots go to the client session, which answers; any other request goes
// on to the SDK's handler.
func TestRelayRoute(t *testing.T) {
	c := connectClient(t)
	r := &upstream.Relay{Session: c.ss, Log: slog.Default()}
	errNext := errors.New("the SDK's handler")
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return nil, errNext
	}
	h := r.Route(next)
	tests := []struct {
		name   string
		method string
		req    mcp.Request
		check  func(mcp.Result, error) bool
	}{
		{"sampling", "sampling/createMessage", &mcp.CreateMessageRequest{Params: &mcp.CreateMessageParams{MaxTokens: 1}}, func(res mcp.Result, err error) bool {
			m, ok := res.(*mcp.CreateMessageResult)
			return err == nil && ok && m.Model == "m"
		}},
		{"roots", "roots/list", &mcp.ListRootsRequest{Params: &mcp.ListRootsParams{}}, func(res mcp.Result, err error) bool {
			l, ok := res.(*mcp.ListRootsResult)
			return err == nil && ok && len(l.Roots) == 1 && l.Roots[0].URI == "file:///root"
		}},
		{"other", "ping", &mcp.ClientRequest[*mcp.PingParams]{Params: &mcp.PingParams{}}, func(_ mcp.Result, err error) bool {
			return errors.Is(err, errNext)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := h(ctx, tt.method, tt.req)
			if !tt.check(res, err) {
				t.Errorf("Route(%s) = %#v, %v", tt.method, res, err)
			}
		})
	}
}
