package cache_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/cache"
)

// redisServer is the Redis the tests use (see internal/redistest).
var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

// newRedis returns a Redis cache backend with keys of the test's own, and
// the client, for inspecting them.
func newRedis(t *testing.T) (*cache.Redis, *redis.Client, string) {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: redisServer.Addr(t), ContextTimeoutEnabled: true, ReadTimeout: 2 * time.Second})
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-test:%d:%s:", os.Getpid(), t.Name())
	return cache.NewRedis(client, &cache.RedisOptions{Prefix: prefix}), client, prefix
}

// TestRedisSharedAcrossInstances runs two servers (two cache plugins, as
// two instances would have) on one Redis: what one stored, the other
// serves, decoded into the tool's own output type although the second
// process never cached a value of it.
func TestRedisSharedAcrossInstances(t *testing.T) {
	backend, client, prefix := newRedis(t)
	a, cacheA, toolsA := newHarness(t, cache.Config{Backend: backend, TTL: time.Minute})
	b, cacheB, toolsB := newHarness(t, cache.Config{Backend: backend, TTL: time.Minute})
	ca, cb := a.Connect(nil), b.Connect(nil)

	first := ca.Call("weather", query{City: "Oslo"})
	if first.Err != nil || first.IsError() {
		t.Fatalf("first call: %v %v", first.Err, first.Res)
	}
	second := cb.Call("weather", query{City: "Oslo"})
	if second.Err != nil || second.IsError() {
		t.Fatalf("second call: %v %v", second.Err, second.Res)
	}
	if toolsA.runs("weather") != 1 || toolsB.runs("weather") != 0 {
		t.Errorf("executions: A %d, B %d; want the tool run once, on A", toolsA.runs("weather"), toolsB.runs("weather"))
	}
	if got, want := cacheB.Stats().Hits, uint64(1); got != want {
		t.Errorf("B's hits = %d, want %d", got, want)
	}
	if cacheA.Stats().Stores != 1 {
		t.Errorf("A's stores = %d, want 1", cacheA.Stats().Stores)
	}
	if first.Text() != second.Text() {
		t.Errorf("B answered %q, A %q", second.Text(), first.Text())
	}
	// The entry carries the TTL in Redis itself.
	keys, err := client.Keys(context.Background(), prefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys under %s: %v %v", prefix, keys, err)
	}
	ttl, err := client.PTTL(context.Background(), keys[0]).Result()
	if err != nil || ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v, %v; want in (0, 1m]", ttl, err)
	}
}

// TestRedisTTL checks that an entry past its TTL is a miss on every
// instance.
func TestRedisTTL(t *testing.T) {
	backend, _, _ := newRedis(t)
	h, c, ts := newHarness(t, cache.Config{Backend: backend, TTL: 50 * time.Millisecond})
	s := h.Connect(nil)
	s.Call("weather", query{City: "Rome"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		time.Sleep(100 * time.Millisecond)
		s.Call("weather", query{City: "Rome"})
		if ts.runs("weather") == 2 {
			break // expired in Redis: executed again
		}
		if time.Now().After(deadline) {
			t.Fatalf("entry never expired: %+v", c.Stats())
		}
	}
}

// TestRedisDownIsAMiss checks that an unreachable Redis makes calls
// execute, never fail.
func TestRedisDownIsAMiss(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: redistest.RefusingAddr(t), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	h, c, ts := newHarness(t, cache.Config{Backend: cache.NewRedis(client, nil)})
	s := h.Connect(nil)
	for range 2 {
		if res := s.Call("weather", query{City: "Lima"}); res.Err != nil || res.IsError() {
			t.Fatalf("call with Redis down: %v %v", res.Err, res.Res)
		}
	}
	if ts.runs("weather") != 2 || c.Stats().Errors == 0 {
		t.Errorf("runs %d, stats %+v; want two executions and counted errors", ts.runs("weather"), c.Stats())
	}
}
