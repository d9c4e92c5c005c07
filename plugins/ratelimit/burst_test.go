package ratelimit_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

const unavailable = "isError: rate limit: the rate limiter is unavailable, so the call was refused; retry later"

// TestRedisBurst is issue 9's burst: 300 concurrent calls against a quota
// of 50 on a healthy Redis 1s away, with the client RedisClientOptions
// builds and a Timeout of 8s. Every call is decided by the budget —
// exactly 50 allowed, the rest refused as over budget — and none as
// "unavailable" for want of a connection: go-redis's default pool of 10
// per CPU would queue them for 15 or more round trips (15s or more on two
// CPUs), past the Timeout, while the plugin's pool decides them in two or
// three. The margin between the two is wide so that a loaded machine
// running the race detector does not turn a slow call into a refusal.
func TestRedisBurst(t *testing.T) {
	addr := delayProxy(t, redisAddr(t), time.Second)
	const sessions, perSession, quota = 10, 30, 50
	const timeout = 8 * time.Second
	client := redis.NewClient(ratelimit.RedisClientOptions(addr, timeout))
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-test:burst:%d:", time.Now().UnixNano())
	srv, _ := newServer(t, ratelimit.Config{
		PerTool: ratelimit.Limit{Burst: quota},
		Backend: ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix}),
		Timeout: timeout,
	})
	css := make([]*mcp.ClientSession, sessions)
	for i := range css {
		css[i] = connect(t, srv)
	}
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range sessions * perSession {
		wg.Go(func() {
			<-start
			r := call(css[i%sessions], "search")
			mu.Lock()
			got[r]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	want := map[string]int{"ok": quota, searchSpent: sessions*perSession - quota}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
}

// TestTimeoutWhateverTheClient: a go-redis client that ignores contexts
// and waits a minute for a reply cannot hold a call past the plugin's
// Timeout.
func TestTimeoutWhateverTheClient(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: redistest.SilentAddr(t), ReadTimeout: time.Minute, WriteTimeout: time.Minute, MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	srv, _ := newServer(t, ratelimit.Config{
		PerSession: ratelimit.Limit{Rate: 1, Burst: 1},
		Backend:    ratelimit.NewRedis(client, nil),
		Timeout:    100 * time.Millisecond,
	})
	cs := connect(t, srv)
	done := make(chan string, 1)
	go func() { done <- call(cs, "search") }()
	select {
	case got := <-done:
		if got != unavailable {
			t.Errorf("got %s, want %s", got, unavailable)
		}
	case <-time.After(20 * time.Second): // a bound on a hang, not a timing
		t.Fatal("the call waited for the client's own minute-long timeout")
	}
}

// delayProxy forwards TCP to addr, holding every reply but a connection's
// first (the handshake) back by delay: a healthy Redis far away.
func delayProxy(t testing.TB, addr string, delay time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for first := true; ; first = false {
					n, err := up.Read(buf)
					if n > 0 && !first {
						time.Sleep(delay)
					}
					if n > 0 {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestLateRepliesSpendNothing: replies that arrive after the plugin gave up
// (the call was refused as unavailable) do not spend the budget: the
// tokens a late grant took are given back.
func TestLateRepliesSpendNothing(t *testing.T) {
	addr := redisAddr(t)
	const quota = 5
	prefix := fmt.Sprintf("hookflow-test:late:%d:", time.Now().UnixNano())
	slow := redis.NewClient(ratelimit.RedisClientOptions(delayProxy(t, addr, 400*time.Millisecond), 100*time.Millisecond))
	t.Cleanup(func() { _ = slow.Close() })
	srv, _ := newServer(t, ratelimit.Config{
		PerTool: ratelimit.Limit{Burst: quota},
		Backend: ratelimit.NewRedis(slow, &ratelimit.RedisOptions{Prefix: prefix}),
		Timeout: 100 * time.Millisecond,
	})
	cs := connect(t, srv)
	for range quota {
		if got := call(cs, "search"); got != unavailable {
			t.Fatalf("a call over the slow link: %s, want %s", got, unavailable)
		}
	}
	// Wait until the late replies have been dealt with: the bucket is full
	// again, or it never will be.
	direct := redis.NewClient(ratelimit.RedisClientOptions(addr, 5*time.Second))
	t.Cleanup(func() { _ = direct.Close() })
	var tokens float64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v, err := direct.HGet(context.Background(), prefix+"t:search", "tk").Result()
		if err == redis.Nil {
			tokens = quota // no bucket: full
		} else if err != nil {
			t.Fatal(err)
		} else if tokens, err = strconv.ParseFloat(v, 64); err != nil {
			t.Fatal(err)
		}
		if tokens >= quota {
			break
		}
	}
	if tokens < quota {
		t.Fatalf("the bucket holds %v tokens after %d refused calls, want %d: late replies spent the budget", tokens, quota, quota)
	}
	fast, _ := newServer(t, ratelimit.Config{
		PerTool: ratelimit.Limit{Burst: quota},
		Backend: ratelimit.NewRedis(direct, &ratelimit.RedisOptions{Prefix: prefix}),
		Timeout: 5 * time.Second,
	})
	cs = connect(t, fast)
	for i := range quota {
		if got := call(cs, "search"); got != "ok" {
			t.Fatalf("call %d after the refused ones: %s, want ok", i, got)
		}
	}
}
