package sessiongate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// redisServer is the Redis the tests use (see internal/redistest).
var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

var prefixSeq atomic.Int64

// newRedisStore returns a Redis store with keys of its own on the Redis at
// addr.
func newRedisStore(t testing.TB, addr string, idle time.Duration) *sessiongate.Redis {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second})
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-test:%d:%d:%s:", os.Getpid(), prefixSeq.Add(1), t.Name())
	return sessiongate.NewRedis(client, &sessiongate.RedisOptions{Prefix: prefix, Idle: idle})
}

type namedStore struct {
	name  string
	store sessiongate.Store
}

// stores returns the stores to test: in memory, and Redis (skipped
// without one unless HOOKFLOW_REQUIRE_REDIS=1).
func stores(t *testing.T) []namedStore {
	return []namedStore{
		{"memory", sessiongate.NewMemory(nil)},
		{"redis", newRedisStore(t, redisServer.Addr(t), time.Minute)},
	}
}

// TestStores: Load and Advance on both stores: unknown sessions are
// uninitialized, states only move forward, Advance returns the state
// before.
func TestStores(t *testing.T) {
	ctx := context.Background()
	for _, s := range stores(t) {
		t.Run(s.name, func(t *testing.T) {
			steps := []struct {
				to, wantFrom, wantAfter sessiongate.State
			}{
				{sessiongate.Initialized, sessiongate.Uninitialized, sessiongate.Initialized},
				{sessiongate.Initialized, sessiongate.Initialized, sessiongate.Initialized},
				{sessiongate.Working, sessiongate.Initialized, sessiongate.Working},
				{sessiongate.Ready, sessiongate.Working, sessiongate.Working},
			}
			if st, err := s.store.Load(ctx, "a"); st != sessiongate.Uninitialized || err != nil {
				t.Fatalf("Load of a new session: %v, %v", st, err)
			}
			for i, step := range steps {
				from, err := s.store.Advance(ctx, "a", step.to)
				if err != nil || from != step.wantFrom {
					t.Errorf("step %d: Advance(%v) = %v, %v; want %v", i, step.to, from, err, step.wantFrom)
				}
				if st, err := s.store.Load(ctx, "a"); st != step.wantAfter || err != nil {
					t.Errorf("step %d: Load = %v, %v; want %v", i, st, err, step.wantAfter)
				}
			}
			if st, _ := s.store.Load(ctx, "b"); st != sessiongate.Uninitialized {
				t.Errorf("session b shares a's state: %v", st)
			}
		})
	}
}

// TestMemoryIdle: the memory store forgets a session idle longer than
// Idle, and a Load keeps it alive.
func TestMemoryIdle(t *testing.T) {
	now := time.Unix(1000, 0)
	m := sessiongate.NewMemory(&sessiongate.MemoryOptions{Idle: time.Minute, Now: func() time.Time { return now }})
	ctx := context.Background()
	_, _ = m.Advance(ctx, "kept", sessiongate.Ready)
	_, _ = m.Advance(ctx, "idle", sessiongate.Ready)
	now = now.Add(50 * time.Second)
	if st, _ := m.Load(ctx, "kept"); st != sessiongate.Ready {
		t.Fatalf("kept: %v", st)
	}
	now = now.Add(50 * time.Second)
	if st, _ := m.Load(ctx, "idle"); st != sessiongate.Uninitialized {
		t.Errorf("idle session still %v after 100s", st)
	}
	if st, _ := m.Load(ctx, "kept"); st != sessiongate.Ready {
		t.Errorf("kept session %v", st)
	}
	if m.Len() != 1 {
		t.Errorf("Len %d, want 1", m.Len())
	}
}

// TestRedisIdle: the Redis store's key expires after Idle without calls,
// and every Load renews it. Expiry is observed with EXISTS, which does not
// renew the key, so the test polls without keeping the session alive.
func TestRedisIdle(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: redisServer.Addr(t), MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-test:%d:%d:%s:", os.Getpid(), prefixSeq.Add(1), t.Name())
	const idle = 200 * time.Millisecond
	s := sessiongate.NewRedis(client, &sessiongate.RedisOptions{Prefix: prefix, Idle: idle})
	ctx := context.Background()
	if _, err := s.Advance(ctx, "a", sessiongate.Ready); err != nil {
		t.Fatal(err)
	}
	// A Load renews the TTL to the full Idle.
	time.Sleep(idle / 2)
	if st, err := s.Load(ctx, "a"); err != nil || st != sessiongate.Ready {
		t.Fatalf("Load = %v, %v; want Ready", st, err)
	}
	if ttl := client.PTTL(ctx, prefix+"a").Val(); ttl <= idle/2 {
		t.Errorf("TTL after Load %v, want it renewed to about %v", ttl, idle)
	}
	deadline := time.Now().Add(30 * time.Second)
	for client.Exists(ctx, prefix+"a").Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session never expired")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, err := s.Load(ctx, "a"); err != nil || st != sessiongate.Uninitialized {
		t.Errorf("Load after expiry = %v, %v; want Uninitialized", st, err)
	}
}

// TestStatelessInstances: two server instances behind stateless HTTP
// share the sessions' states through Redis, keyed by a header the client
// sends: a session initialized on one may work on the other. With the
// default key, stateless HTTP has no session, and gated calls are refused.
func TestStatelessInstances(t *testing.T) {
	addr := redisServer.Addr(t)
	prefix := fmt.Sprintf("hookflow-test:%d:%d:stateless:", os.Getpid(), prefixSeq.Add(1))
	instance := func(key bool) string {
		client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = client.Close() })
		cfg := sessiongate.Config{Requires: []string{"work"}, Store: sessiongate.NewRedis(client, &sessiongate.RedisOptions{Prefix: prefix})}
		if key {
			cfg.Key = sessiongate.ByHeader("X-Conversation")
		}
		g := newGated(t, cfg)
		h, err := g.srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	a, b := instance(true), instance(true)
	conn := func(url, conversation string) *mcp.ClientSession {
		hc := &http.Client{Transport: headerRT{conversation}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	callText := func(cs *mcp.ClientSession, tool string) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	onA, onB, otherOnB := conn(a, "conv-1"), conn(b, "conv-1"), conn(b, "conv-2")
	if got := callText(onB, "work"); got != blockedInit("work") {
		t.Errorf("before init: %q", got)
	}
	if got := callText(onA, "session_init"); got != "session_init ok" {
		t.Errorf("init on A: %q", got)
	}
	if got := callText(onB, "work"); got != "work ok" {
		t.Errorf("work on B after init on A: %q", got)
	}
	if got := callText(otherOnB, "work"); got != blockedInit("work") {
		t.Errorf("another conversation: %q", got)
	}
	plain := conn(instance(false), "conv-1")
	if got := callText(plain, "work"); got != (&sessiongate.UnavailableError{}).Error() {
		t.Errorf("stateless with the default key: %q", got)
	}
}

type headerRT struct{ conversation string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Conversation", h.conversation)
	return http.DefaultTransport.RoundTrip(r)
}

// TestRedisDown: a Redis that refuses connections or never answers fails
// gated calls closed within the Timeout, or lets them through with
// flows.FailOpen.
func TestRedisDown(t *testing.T) {
	for _, tt := range []struct {
		name string
		addr string
	}{{"refusing", redistest.RefusingAddr(t)}, {"silent", redistest.SilentAddr(t)}} {
		t.Run(tt.name, func(t *testing.T) {
			for _, policy := range []flows.FailurePolicy{flows.FailClosed, flows.FailOpen} {
				g := newGated(t, sessiongate.Config{Requires: []string{"work"}, Store: newRedisStore(t, tt.addr, time.Minute),
					OnStoreError: policy, Timeout: 200 * time.Millisecond})
				res, err := connect(t, g.srv).CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				got := res.Content[0].(*mcp.TextContent).Text
				want := (&sessiongate.UnavailableError{}).Error()
				if policy == flows.FailOpen {
					want = "work ok"
				}
				if got != want || !strings.Contains(got, "ok") != res.IsError {
					t.Errorf("%v: %v %q, want %q", policy, res.IsError, got, want)
				}
			}
		})
	}
}
