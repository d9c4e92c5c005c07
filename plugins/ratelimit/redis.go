package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// DefaultRedisPrefix starts the keys of the Redis backend's buckets.
const DefaultRedisPrefix = "hookflow:ratelimit:"

// RedisOptions configure [NewRedis]. The zero value is ready to use.
type RedisOptions struct {
	// Prefix starts every bucket's key; "" means DefaultRedisPrefix. On a
	// Redis Cluster, put a hash tag in it (e.g. "{hookflow-rl}:") so that
	// the buckets of one call, which one script updates, share a slot.
	Prefix string
	// MaxIdle bounds how long a bucket's key lives after its last use
	// (keys of buckets that refill expire once full); 0 means
	// DefaultMaxIdle.
	MaxIdle time.Duration
}

// Redis is the Backend that keeps buckets in Redis, so that several server
// instances share one budget. A Take is one Lua script — atomic across its
// buckets, with the time taken from the Redis server's clock (TIME), so the
// instances' clocks do not matter.
//
// The plugin bounds every call by its Timeout whatever the client does; a
// client of its own from [RedisClientOptions] also has a pool sized for
// bursts and reads late replies so that their grants are refunded. A
// client of your own should set ContextTimeoutEnabled, and a pool as large
// as the bursts you expect: calls that wait for a connection past the
// Timeout are refused (flows.FailClosed).
type Redis struct {
	client  redis.Scripter
	prefix  string
	maxIdle time.Duration
}

// NewRedis returns a Redis backend using client (a *redis.Client,
// *redis.ClusterClient or any redis.UniversalClient). opts may be nil.
func NewRedis(client redis.Scripter, opts *RedisOptions) *Redis {
	r := &Redis{client: client, prefix: DefaultRedisPrefix, maxIdle: DefaultMaxIdle}
	if opts != nil && opts.Prefix != "" {
		r.prefix = opts.Prefix
	}
	if opts != nil && opts.MaxIdle > 0 {
		r.maxIdle = opts.MaxIdle
	}
	return r
}

// DefaultRedisPoolSize is the connection pool of the clients
// [RedisClientOptions] configures: enough for a burst of a few hundred
// concurrent calls to be decided at once rather than queue for a
// connection past the plugin's Timeout (go-redis's default is 10 per CPU).
const DefaultRedisPoolSize = 256

// RedisClientOptions returns go-redis options for a rate limiter's client
// of the server at addr, given the plugin's Timeout: dials and pool waits
// bounded by timeout, reads and writes by timeout + LateReplyWait (so that
// a late grant is read and refunded), context deadlines honoured, a pool
// of DefaultRedisPoolSize connections, one dial attempt, no retries, and
// no optional handshake commands. Set Password, DB, TLSConfig… on the
// result, then pass it to redis.NewClient.
func RedisClientOptions(addr string, timeout time.Duration) *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		DialTimeout:              timeout,
		ReadTimeout:              timeout + LateReplyWait,
		WriteTimeout:             timeout + LateReplyWait,
		PoolTimeout:              timeout,
		PoolSize:                 DefaultRedisPoolSize,
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialerRetries:            1,
		DisableIdentity:          true,
		Protocol:                 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// luaStore is the Lua function both scripts store a bucket with: its
// tokens and time, expiring when it would be full again (at most maxidle
// milliseconds from now).
const luaStore = `
local function store(key, tk, now, rate, burst, maxidle)
  redis.call('HSET', key, 'tk', string.format('%.17g', tk), 'ts', string.format('%d', now))
  local ttl = maxidle
  if rate > 0 then
    ttl = math.ceil((burst - tk) * 1000 / rate) + 1000
    if ttl > maxidle then ttl = maxidle end
  end
  redis.call('PEXPIRE', key, ttl)
end
`

// takeScript takes one token from every bucket in KEYS, or none.
//
// ARGV[1] is the longest a key may live, in ms; then ARGV[2i] and
// ARGV[2i+1] are bucket i's rate (tokens per second) and burst. A bucket is
// a hash {tk: tokens, ts: last update in µs on the server's clock}; a
// missing one is full. It returns {allowed (0/1), blocked bucket (1-based,
// 0 if allowed), wait in µs until every bucket has a token (-1: never)}.
var takeScript = redis.NewScript(luaStore + `
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 5: writes after TIME
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local maxidle = tonumber(ARGV[1])
local n = #KEYS
local tokens = {}
local blocked = 0
local wait = 0
for i = 1, n do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local v = redis.call('HMGET', KEYS[i], 'tk', 'ts')
  local tk = tonumber(v[1])
  local ts = tonumber(v[2])
  if tk == nil or ts == nil then
    tk = burst
  elseif now > ts and rate > 0 then
    tk = tk + (now - ts) * rate / 1000000
  end
  if tk > burst then tk = burst end
  tokens[i] = tk
  if tk < 1 then
    if blocked == 0 then blocked = i end
    if rate <= 0 then
      wait = -1
    elseif wait >= 0 then
      local w = math.ceil((1 - tk) * 1000000 / rate)
      if w > 9e15 then
        wait = -1
      elseif w > wait then
        wait = w
      end
    end
  end
end
if blocked > 0 then
  return {0, blocked, wait}
end
for i = 1, n do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local tk = tokens[i] - 1
  store(KEYS[i], tk, now, rate, burst, maxidle)
end
return {1, 0, 0}
`)

// refundScript gives back one token to every bucket in KEYS, up to its
// burst, refilling it first as takeScript does. ARGV is as for takeScript.
// A missing bucket is full already.
var refundScript = redis.NewScript(luaStore + `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local maxidle = tonumber(ARGV[1])
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local v = redis.call('HMGET', KEYS[i], 'tk', 'ts')
  local tk = tonumber(v[1])
  local ts = tonumber(v[2])
  if tk ~= nil and ts ~= nil then
    if now > ts and rate > 0 then
      tk = tk + (now - ts) * rate / 1000000
    end
    tk = tk + 1
    if tk > burst then tk = burst end
    store(KEYS[i], tk, now, rate, burst, maxidle)
  end
end
return 1
`)

// args returns the keys and arguments of buckets for the scripts.
func (r *Redis) args(buckets []Bucket) ([]string, []any) {
	keys := make([]string, len(buckets))
	args := make([]any, 1, 1+2*len(buckets))
	args[0] = strconv.FormatInt(r.maxIdle.Milliseconds(), 10)
	for i, b := range buckets {
		keys[i] = r.prefix + b.Key
		args = append(args, strconv.FormatFloat(b.Limit.Rate, 'g', -1, 64), strconv.Itoa(b.Limit.Burst))
	}
	return keys, args
}

// Refund implements Refunder.
func (r *Redis) Refund(ctx context.Context, buckets []Bucket) error {
	if len(buckets) == 0 {
		return nil
	}
	keys, args := r.args(buckets)
	if err := refundScript.Run(ctx, r.client, keys, args...).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: refund: %w", err)
	}
	return nil
}

// Take implements Backend.
func (r *Redis) Take(ctx context.Context, buckets []Bucket) (Decision, error) {
	if len(buckets) == 0 {
		return Decision{Allowed: true}, nil
	}
	keys, args := r.args(buckets)
	res, err := takeScript.Run(ctx, r.client, keys, args...).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: redis: unexpected script reply %v", res)
	}
	if res[0] == 1 {
		return Decision{Allowed: true}, nil
	}
	d := Decision{Blocked: int(res[1]) - 1, RetryAfter: Never}
	if res[2] >= 0 {
		d.RetryAfter = time.Duration(res[2]) * time.Microsecond
	}
	if d.Blocked < 0 || d.Blocked >= len(buckets) {
		d.Blocked = 0
	}
	return d, nil
}

var _ Refunder = (*Redis)(nil)
