package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// backends are the implementations every backend test runs against.
var backends = []struct {
	name string
	new  func(t testing.TB) ratelimit.Backend
}{
	{"memory", func(testing.TB) ratelimit.Backend { return ratelimit.NewMemory(nil) }},
	{"redis", func(t testing.TB) ratelimit.Backend { return newRedisBackend(t) }},
}

func take(t testing.TB, b ratelimit.Backend, buckets ...ratelimit.Bucket) ratelimit.Decision {
	t.Helper()
	d, err := b.Take(context.Background(), buckets)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func bucket(key string, rate float64, burst int) ratelimit.Bucket {
	return ratelimit.Bucket{Key: key, Limit: ratelimit.Limit{Rate: rate, Burst: burst}}
}

// TestBackends is the contract of a Backend, checked on each.
func TestBackends(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				run  func(t *testing.T, b ratelimit.Backend)
			}{
				{"a bucket gives its burst, then refuses for ever at rate 0", func(t *testing.T, b ratelimit.Backend) {
					for i := range 3 {
						if d := take(t, b, bucket("q", 0, 3)); !d.Allowed {
							t.Fatalf("take %d refused", i+1)
						}
					}
					d := take(t, b, bucket("q", 0, 3))
					if d.Allowed || d.Blocked != 0 || d.RetryAfter != ratelimit.Never {
						t.Errorf("4th take = %+v, want refused, blocked 0, RetryAfter Never", d)
					}
				}},
				{"all or nothing across buckets", func(t *testing.T, b ratelimit.Backend) {
					big, small := bucket("big", 0, 5), bucket("small", 0, 2)
					for range 2 {
						if d := take(t, b, big, small); !d.Allowed {
							t.Fatalf("refused early: %+v", d)
						}
					}
					if d := take(t, b, big, small); d.Allowed || d.Blocked != 1 {
						t.Fatalf("3rd take = %+v, want refused by bucket 1", d)
					}
					// The refused take spent nothing: big has 3 left.
					for i := range 3 {
						if d := take(t, b, big); !d.Allowed {
							t.Fatalf("big alone, take %d refused: the refused take spent its token", i+1)
						}
					}
					if d := take(t, b, big); d.Allowed {
						t.Fatal("big gave more than its burst")
					}
				}},
				{"keys are independent", func(t *testing.T, b ratelimit.Backend) {
					take(t, b, bucket("x", 0, 1))
					if d := take(t, b, bucket("x", 0, 1)); d.Allowed {
						t.Fatal("x gave 2 of 1")
					}
					if d := take(t, b, bucket("y", 0, 1)); !d.Allowed {
						t.Fatal("y refused because x is empty")
					}
				}},
				{"refill and retry-after", func(t *testing.T, b ratelimit.Backend) {
					r := bucket("r", 20, 1) // one token per 50ms
					if d := take(t, b, r); !d.Allowed {
						t.Fatal("first take refused")
					}
					d := take(t, b, r)
					if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 50*time.Millisecond {
						t.Fatalf("second take = %+v, want refused with 0 < RetryAfter ≤ 50ms", d)
					}
					time.Sleep(d.RetryAfter + 5*time.Millisecond)
					if d := take(t, b, r); !d.Allowed {
						t.Fatalf("after RetryAfter: %+v", d)
					}
				}},
				{"retry-after is the longest wait of the empty buckets", func(t *testing.T, b ratelimit.Backend) {
					fast, slow := bucket("fast", 100, 1), bucket("slow", 0.5, 1)
					take(t, b, fast, slow)
					d := take(t, b, fast, slow)
					if d.Allowed || d.Blocked != 0 || d.RetryAfter < time.Second || d.RetryAfter > 2*time.Second {
						t.Fatalf("got %+v, want refused by bucket 0, RetryAfter ≈ 2s (the slow bucket)", d)
					}
					never := bucket("never", 0, 1)
					if d := take(t, b, bucket("fast2", 100, 1), never); !d.Allowed {
						t.Fatalf("refused: %+v", d)
					}
					if d := take(t, b, bucket("fast3", 100, 1), never); d.Allowed || d.Blocked != 1 || d.RetryAfter != ratelimit.Never {
						t.Fatalf("with an empty rate-0 bucket: %+v, want refused by bucket 1, RetryAfter Never", d)
					}
				}},
				{"a smaller burst caps the stored tokens", func(t *testing.T, b ratelimit.Backend) {
					take(t, b, bucket("c", 0, 5)) // 4 left
					n := 0
					for take(t, b, bucket("c", 0, 2)).Allowed {
						n++
					}
					if n != 2 {
						t.Errorf("after the burst shrank to 2, %d takes were allowed", n)
					}
				}},
				{"exact under concurrency", func(t *testing.T, b ratelimit.Backend) {
					const burst, callers = 50, 400
					var allowed atomic.Int64
					var wg sync.WaitGroup
					for i := range callers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							// Half take two buckets, to cross shard locks.
							bs := []ratelimit.Bucket{bucket("hot", 1e-9, burst)}
							if i%2 == 0 {
								bs = append(bs, bucket("other", 0, callers))
							}
							d, err := b.Take(context.Background(), bs)
							if err != nil {
								t.Error(err)
								return
							}
							if d.Allowed {
								allowed.Add(1)
							}
						}()
					}
					wg.Wait()
					if got := allowed.Load(); got != burst {
						t.Errorf("%d concurrent takes allowed, want exactly %d", got, burst)
					}
				}},
				{"no buckets is allowed", func(t *testing.T, b ratelimit.Backend) {
					if d := take(t, b); !d.Allowed {
						t.Error("refused")
					}
				}},
			} {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, be.new(t)) })
			}
		})
	}
}

// fakeClock is a settable clock for the memory backend.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestMemoryRefillExact(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := ratelimit.NewMemory(&ratelimit.MemoryOptions{Now: clock.Now})
	b := bucket("k", 2, 4) // 2 tokens a second, burst 4
	for range 4 {
		if !take(t, m, b).Allowed {
			t.Fatal("burst refused")
		}
	}
	d := take(t, m, b)
	if d.Allowed || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("empty bucket: %+v, want RetryAfter 500ms", d)
	}
	clock.Advance(499 * time.Millisecond)
	if take(t, m, b).Allowed {
		t.Fatal("allowed 1ms early")
	}
	clock.Advance(time.Millisecond)
	if !take(t, m, b).Allowed {
		t.Fatal("refused on time")
	}
	clock.Advance(time.Hour) // refills to the burst, not beyond
	n := 0
	for take(t, m, b).Allowed {
		n++
	}
	if n != 4 {
		t.Errorf("after an hour, %d takes allowed, want the burst (4)", n)
	}
}

func TestMemoryForgetsFullAndIdleBuckets(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := ratelimit.NewMemory(&ratelimit.MemoryOptions{Now: clock.Now, MaxIdle: time.Hour})
	for i := range 5000 {
		take(t, m, bucket("refilling-"+string(rune('a'+i%26))+itoa(i), 10, 5))
	}
	take(t, m, bucket("quota", 0, 5))
	if m.Len() != 5001 {
		t.Fatalf("Len = %d, want 5001", m.Len())
	}
	clock.Advance(time.Second) // the refilling buckets are full again
	// Enough traffic for every shard to sweep (each sweeps every 1024 takes).
	for i := range 200_000 {
		take(t, m, bucket("x"+itoa(i%4096), 1000, 1000))
	}
	if n := m.Len(); n > 4096+1 {
		t.Errorf("Len = %d after the refilling buckets filled up; they should be forgotten", n)
	}
	// The rate-0 quota is kept until MaxIdle.
	if d := take(t, m, bucket("quota", 0, 5)); !d.Allowed {
		t.Fatal("quota refused")
	}
	n := 0
	for take(t, m, bucket("quota", 0, 5)).Allowed {
		n++
	}
	if n != 3 {
		t.Errorf("quota: %d more takes allowed, want 3 (it must not have been forgotten)", n)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

func TestMemoryHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ratelimit.NewMemory(nil).Take(ctx, []ratelimit.Bucket{bucket("k", 1, 1)}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRedisUnreachable: a Redis that refuses connections or never answers
// makes Take fail within the context's deadline, never hang.
func TestRedisUnreachable(t *testing.T) {
	for _, tc := range []struct {
		name string
		addr func(testing.TB) string
		// clientTimeout is the go-redis client's own timeout: the context's
		// deadline must bound the call even when it is long.
		clientTimeout time.Duration
	}{
		{"connection refused", redistest.RefusingAddr, 100 * time.Millisecond},
		{"accepts, never answers", redistest.SilentAddr, 100 * time.Millisecond},
		{"never answers, long client timeouts", redistest.SilentAddr, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := redis.NewClient(ratelimit.RedisClientOptions(tc.addr(t), tc.clientTimeout))
			defer client.Close()
			b := ratelimit.NewRedis(client, nil)
			for range 3 { // the first and later attempts (pool state) alike
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				start := time.Now()
				_, err := b.Take(ctx, []ratelimit.Bucket{bucket("k", 1, 1)})
				cancel()
				if err == nil {
					t.Fatal("Take succeeded against no Redis")
				}
				if el := time.Since(start); el > 2*time.Second {
					t.Fatalf("Take took %v (err %v), want it bounded by the 200ms deadline", el, err)
				}
			}
		})
	}
}

// TestRedisSharedBudget: two backends (two server instances) on one Redis
// share the budget.
func TestRedisSharedBudget(t *testing.T) {
	addr := redisAddr(t)
	prefix := "hookflow-test:shared:" + itoa(int(time.Now().UnixNano()%1e9)) + ":"
	var instances []ratelimit.Backend
	for range 2 {
		client := redis.NewClient(ratelimit.RedisClientOptions(addr, 5*time.Second))
		t.Cleanup(func() { _ = client.Close() })
		instances = append(instances, ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix}))
	}
	allowed := 0
	for i := range 10 {
		if take(t, instances[i%2], bucket("user", 0, 6)).Allowed {
			allowed++
		}
	}
	if allowed != 6 {
		t.Errorf("two instances allowed %d calls of a shared burst of 6", allowed)
	}
}

// TestRedisKeysExpire: keys carry a TTL, so idle buckets do not pile up.
func TestRedisKeysExpire(t *testing.T) {
	addr := redisAddr(t)
	client := redis.NewClient(ratelimit.RedisClientOptions(addr, 5*time.Second))
	defer client.Close()
	prefix := "hookflow-test:ttl:" + itoa(int(time.Now().UnixNano()%1e9)) + ":"
	b := ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix, MaxIdle: 10 * time.Minute})
	take(t, b, bucket("fast", 10, 5), bucket("quota", 0, 5))
	ctx := context.Background()
	fast := client.PTTL(ctx, prefix+"fast").Val()
	quota := client.PTTL(ctx, prefix+"quota").Val()
	// fast refills its 1 token in 100ms, plus a second of slack.
	if fast <= 0 || fast > 1200*time.Millisecond {
		t.Errorf("TTL of a refilling bucket = %v, want ≈ 1.1s", fast)
	}
	if quota <= 9*time.Minute || quota > 10*time.Minute {
		t.Errorf("TTL of a rate-0 bucket = %v, want MaxIdle (10m)", quota)
	}
}
