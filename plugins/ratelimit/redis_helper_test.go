package ratelimit_test

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// redisServer is the Redis the tests use (see internal/redistest).
var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

// redisAddr returns the address of a Redis server for the test, or skips it.
func redisAddr(t testing.TB) string { return redisServer.Addr(t) }

var prefixSeq atomic.Int64

// newRedisBackend returns a Redis backend with keys of its own, on a client
// sized for the concurrency tests.
func newRedisBackend(t testing.TB) *ratelimit.Redis {
	t.Helper()
	addr := redisAddr(t)
	opts := ratelimit.RedisClientOptions(addr, 10*time.Second)
	opts.PoolSize = 64
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-test:%d:%d:%s:", os.Getpid(), prefixSeq.Add(1), t.Name())
	return ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix, MaxIdle: time.Minute})
}
