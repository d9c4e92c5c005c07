package ratelimit_test

import (
	"fmt"
	"net"
	"os"
	"sync"
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

// refusingAddr returns a loopback address nothing listens on.
func refusingAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// silentAddr returns the address of a listener that accepts connections and
// never answers.
func silentAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}
