package cache

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts the keys of the Redis backend.
const DefaultRedisPrefix = "hookflow:cache:"

// RedisOptions configure [NewRedis]. The zero value is ready to use.
type RedisOptions struct {
	// Prefix starts every key; "" means DefaultRedisPrefix. Give each
	// server (or each deployment sharing a Redis) a prefix of its own.
	Prefix string
}

// Redis is the [Backend] that keeps results in Redis, so that server
// instances behind a load balancer share their cache: a result one instance
// stored answers the same call on another. Entries expire in Redis (SET
// with PX), so the TTL holds whatever the instances' clocks say and however
// many there are. Eviction beyond memory limits is Redis's (configure its
// maxmemory-policy, e.g. allkeys-lru).
//
// Bound its calls with the client's timeouts (ReadTimeout, WriteTimeout,
// ContextTimeoutEnabled): a Redis error or timeout is a miss, never a
// failed call.
type Redis struct {
	client redis.Cmdable
	prefix string
}

// NewRedis returns a Redis backend using client (a *redis.Client,
// *redis.ClusterClient or any redis.UniversalClient). opts may be nil.
func NewRedis(client redis.Cmdable, opts *RedisOptions) *Redis {
	r := &Redis{client: client, prefix: DefaultRedisPrefix}
	if opts != nil && opts.Prefix != "" {
		r.prefix = opts.Prefix
	}
	return r
}

// Get implements [Backend].
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := r.client.Get(ctx, r.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Set implements [Backend]. A ttl under a millisecond is stored for one.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return r.client.Set(ctx, r.prefix+key, value, max(ttl, time.Millisecond)).Err()
}

var _ Backend = (*Redis)(nil)
