package plugins_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

var redisPrefixSeq atomic.Int64

// newRedisBackend returns a Redis backend with keys of its own (-count=N
// reuses one redis-server), on a client sized for 1,000 concurrent calls.
func newRedisBackend(t testing.TB) ratelimit.Backend {
	t.Helper()
	opts := ratelimit.RedisClientOptions(redisAddr(t), 10*time.Second)
	opts.PoolSize = 64
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	prefix := fmt.Sprintf("hookflow-plugins-test:%d:%d:", os.Getpid(), redisPrefixSeq.Add(1))
	return ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix, MaxIdle: time.Minute})
}

// TestRedisUnreachableFailsClosedFast points the rate limiter at a Redis
// address that refuses connections and at one that accepts and never
// answers, with the other plugins on. The Redis client's own timeouts are a
// minute, so only the plugin's Timeout (DefaultTimeout, 250ms) can answer
// the calls before their deadline of 5s. Fail-closed (the default) refuses
// every call with the plugin's unavailable message, and the audit records
// the rate limiter's decision; fail-open lets every call through. More
// concurrent calls than the client's pool holds (20 on 2 cores) are made, so
// that waiting for a connection is bounded too.
func TestRedisUnreachableFailsClosedFast(t *testing.T) {
	const sessions, perSess = 2, 20 // ann's
	const calls = sessions * perSess
	const deadline = 20 * ratelimit.DefaultTimeout
	for _, addr := range []struct {
		name string
		get  func(testing.TB) string
	}{{"refused", redistest.RefusingAddr}, {"silent", redistest.SilentAddr}} {
		for _, policy := range []flows.FailurePolicy{flows.FailClosed, flows.FailOpen} {
			t.Run(addr.name+"/"+policy.String(), func(t *testing.T) {
				client := redis.NewClient(ratelimit.RedisClientOptions(addr.get(t), time.Minute))
				t.Cleanup(func() { _ = client.Close() })
				sink := &recorder{}
				cfg := ratelimit.Config{
					PerPrincipal: ratelimit.Limit{Rate: 1, Burst: 1000},
					Backend:      ratelimit.NewRedis(client, nil),
				}
				if policy == flows.FailOpen {
					cfg.OnBackendError = flows.FailOpen // the zero value is FailClosed
				}
				s := newStack(t, stackConfig{
					ratelimit: cfg,
					audits:    []audit.Config{{Handler: sink, Flows: []flows.ID{flows.ToolsCallTool}}},
				})
				ann, cy := s.connect(t, users[0]), s.connect(t, users[3])

				// The auth plugin decides before the rate limiter: a denied
				// call is denied with its reason, Redis or not.
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				res, err := cy.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"target": "x"}})
				cancel()
				if k, text := classify(res, err, false); k != scopeDeny {
					t.Errorf("cy: deploy: %s %s, want the scope denial", k, text)
				}

				var wg sync.WaitGroup
				var mu sync.Mutex
				got := map[kind]int{}
				for _, cs := range []*mcp.ClientSession{ann, s.connect(t, users[0])} {
					for j := range perSess {
						wg.Go(func() {
							ctx, cancel := context.WithTimeout(context.Background(), deadline)
							defer cancel()
							p := mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "z"}}
							if j%2 == 0 {
								p = mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"key": 1}}
							}
							res, err := cs.CallTool(ctx, &p)
							k, text := classify(res, err, false)
							if ctx.Err() != nil {
								k, text = unexpected, fmt.Sprintf("no answer within %v: %v", deadline, err)
							}
							mu.Lock()
							got[k]++
							n := got[k]
							mu.Unlock()
							if want := map[flows.FailurePolicy]kind{flows.FailClosed: unavail, flows.FailOpen: answered}[policy]; k != want && n <= 3 {
								t.Errorf("%s: %s %s, want %s", p.Name, k, text, want)
							}
						})
					}
				}
				wg.Wait()

				flush(t, s.audits[0])
				outcomes := map[string]int{}
				for _, ev := range sink.events() {
					switch {
					case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, authHook):
						outcomes["auth"]++
					case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, limitHook) && ev.err == unavailable:
						outcomes["unavailable"]++
					case ev.outcome == string(audit.OK), ev.outcome == string(audit.AnsweredEarly):
						outcomes["allowed"]++
					default:
						outcomes[ev.outcome+" "+ev.decidedBy+" "+ev.err]++
					}
				}
				want := map[string]int{"auth": 1, "unavailable": calls}
				if policy == flows.FailOpen {
					want = map[string]int{"auth": 1, "allowed": calls}
				}
				if !mapsEqual(outcomes, want) {
					t.Errorf("audit outcomes %v, want %v", outcomes, want)
				}
			})
		}
	}
}
