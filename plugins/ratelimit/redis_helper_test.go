package ratelimit_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// The Redis tests need a redis-server. They use HOOKFLOW_REDIS_ADDR when it
// is set (.ci/run sets it); otherwise they start redis-server from PATH on
// a free loopback port and stop it when the tests end; otherwise they skip
// — or fail, when HOOKFLOW_REQUIRE_REDIS=1 (as in CI).
var testRedis struct {
	once sync.Once
	addr string
	why  string // why there is none
	cmd  *exec.Cmd
}

// quiet drops go-redis's own log lines (dial failures the unreachable-Redis
// tests provoke on purpose).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	code := m.Run()
	if c := testRedis.cmd; c != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	os.Exit(code)
}

// redisAddr returns the address of a Redis server for the test, or skips it.
func redisAddr(t testing.TB) string {
	t.Helper()
	testRedis.once.Do(startRedis)
	if testRedis.addr == "" {
		msg := "no Redis for this test: " + testRedis.why +
			"; set HOOKFLOW_REDIS_ADDR=host:port or install redis-server (apt-get install redis-server)"
		if os.Getenv("HOOKFLOW_REQUIRE_REDIS") == "1" {
			t.Fatal(msg + " (HOOKFLOW_REQUIRE_REDIS=1: a Redis test may not skip)")
		}
		t.Skip("skipped: " + msg)
	}
	return testRedis.addr
}

func ping(addr string) error {
	c := redis.NewClient(ratelimit.RedisClientOptions(addr, time.Second))
	defer c.Close()
	return c.Ping(context.Background()).Err()
}

func startRedis() {
	if addr := os.Getenv("HOOKFLOW_REDIS_ADDR"); addr != "" {
		if err := ping(addr); err != nil {
			testRedis.why = fmt.Sprintf("HOOKFLOW_REDIS_ADDR=%s does not answer PING: %v", addr, err)
			return
		}
		testRedis.addr = addr
		return
	}
	path, err := exec.LookPath("redis-server")
	if err != nil {
		testRedis.why = "HOOKFLOW_REDIS_ADDR is unset and redis-server is not in PATH"
		return
	}
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			testRedis.why = "no free port: " + err.Error()
			return
		}
		var out bytes.Buffer
		cmd := exec.Command(path, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--save", "", "--appendonly", "no", "--protected-mode", "yes")
		cmd.Stdout, cmd.Stderr = &out, &out
		dieWithParent(cmd) // a killed test binary leaves no redis-server behind
		if err := cmd.Start(); err != nil {
			testRedis.why = "starting redis-server: " + err.Error()
			return
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ping(addr) == nil {
				testRedis.addr, testRedis.cmd = addr, cmd
				return
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		testRedis.why = "redis-server did not answer PING: " + out.String()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

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
