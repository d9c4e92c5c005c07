package sessiongate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts the keys of the Redis store's sessions.
const DefaultRedisPrefix = "hookflow:sessiongate:"

// RedisOptions configure [NewRedis]. The zero value is ready to use.
type RedisOptions struct {
	// Prefix starts every session's key; "" means DefaultRedisPrefix.
	Prefix string
	// Idle is how long the state of a session that makes no call is kept
	// (the key's TTL, renewed by every Load and Advance); 0 means
	// DefaultIdle.
	Idle time.Duration
}

// Redis is the Store that keeps sessions' states in Redis, so that the
// server instances behind a load balancer, and the requests of stateless
// HTTP, share them. Each Load and Advance is one script: atomic, and one
// round trip.
//
// The plugin bounds each call by its Timeout through the call's context:
// build the client with ContextTimeoutEnabled so that go-redis honours it.
type Redis struct {
	client redis.Scripter
	prefix string
	idleMs string
}

// NewRedis returns a Redis store using client (a *redis.Client,
// *redis.ClusterClient or any redis.UniversalClient). opts may be nil.
func NewRedis(client redis.Scripter, opts *RedisOptions) *Redis {
	r := &Redis{client: client, prefix: DefaultRedisPrefix}
	idle := DefaultIdle
	if opts != nil && opts.Prefix != "" {
		r.prefix = opts.Prefix
	}
	if opts != nil && opts.Idle > 0 {
		idle = opts.Idle
	}
	r.idleMs = strconv.FormatInt(max(idle.Milliseconds(), 1), 10)
	return r
}

// loadScript returns the state of KEYS[1] (0 when missing) and renews its
// TTL of ARGV[1] ms.
var loadScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return tonumber(v)
`)

// advanceScript sets KEYS[1] to ARGV[1] when it holds less, renews its TTL
// of ARGV[2] ms, and returns the state it held.
var advanceScript = redis.NewScript(`
local from = tonumber(redis.call('GET', KEYS[1]) or '0')
local to = tonumber(ARGV[1])
if to > from then
  redis.call('SET', KEYS[1], to, 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return from
`)

// Load returns the session's state.
func (r *Redis) Load(ctx context.Context, key string) (State, error) {
	n, err := loadScript.Run(ctx, r.client, []string{r.prefix + key}, r.idleMs).Int()
	if err != nil {
		return 0, fmt.Errorf("sessiongate: redis: %w", err)
	}
	return checkState(n)
}

// Advance moves the session forward to to.
func (r *Redis) Advance(ctx context.Context, key string, to State) (State, error) {
	n, err := advanceScript.Run(ctx, r.client, []string{r.prefix + key}, int(to), r.idleMs).Int()
	if err != nil {
		return 0, fmt.Errorf("sessiongate: redis: %w", err)
	}
	return checkState(n)
}

func checkState(n int) (State, error) {
	if s := State(n); n >= 0 && s.valid() {
		return s, nil
	}
	return 0, fmt.Errorf("sessiongate: redis holds %d, which is no session state", n)
}
