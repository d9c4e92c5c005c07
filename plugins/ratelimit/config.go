package ratelimit

import (
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/hookflow/hookflow/internal/redisconf"
	"log/slog"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
)

// Config configures the rate-limit plugin; it is also the plugin's section
// of a configuration file (the yaml names below). Each dimension's budget
// is off while its Limit is zero; at least one must be set. A call is
// allowed only when every budget that applies to it has a token, and then
// takes one from each (atomically: a refused call spends nothing).
type Config struct {
	// PerSession is every session's budget, such as "10/s"; off by
	// default.
	PerSession Limit `yaml:"per_session"`
	// PerPrincipal is every authenticated user's budget, across sessions
	// and server instances (with a shared backend), such as "100/m"; off
	// by default.
	PerPrincipal Limit `yaml:"per_principal"`
	// PerTool is every tool's budget, shared by all callers, such as
	// "1000/h"; off by default.
	PerTool Limit `yaml:"per_tool"`
	// Tools overrides PerTool for the named tools (tool name, as clients
	// see it, → limit), such as {search: "1/s"}: each is one budget of the
	// tool shared by every caller and session (and, with Redis, every
	// server instance), not a budget per session; a zero Limit exempts the
	// tool from the per-tool budget. Combine it with PerSession or
	// PerPrincipal to bound each caller too.
	Tools map[string]Limit `yaml:"tools"`
	// Backend stores the buckets; nil uses the Redis backend Redis
	// describes, or, without it, a new NewMemory(nil). Go only.
	Backend Backend `yaml:"-"`
	// Redis, when set and Backend is nil, keeps the buckets in Redis so
	// that several server instances share the budgets: New builds the
	// client (see [RedisClientOptions]) and [NewRedis]; [Plugin.Close]
	// closes it. By default the buckets are in memory.
	Redis *RedisConfig `yaml:"redis"`
	// OnBackendError decides a call when the backend cannot decide (Redis
	// unreachable or too slow): "closed" ([flows.FailClosed], the
	// default) refuses it with an [*UnavailableError]; "open"
	// ([flows.FailOpen]) lets it through unlimited.
	OnBackendError flows.FailurePolicy `yaml:"on_backend_error"`
	// Timeout bounds how long a call waits for the backend's decision,
	// such as "250ms"; 0 means DefaultTimeout (250ms). The plugin
	// enforces it whatever the backend and its client do with context
	// deadlines; past it the call is decided by OnBackendError, and a
	// grant that arrives later is refunded when the backend is a
	// [Refunder]. It is not applied to the in-memory backend, which never
	// waits on I/O.
	Timeout time.Duration `yaml:"timeout"`
	// Priority of the plugin's hook; 0 means priority.RateLimit: after
	// auth, so a call the caller may not make spends no budget.
	Priority int `yaml:"priority"`
	// Logger receives backend failures (at most one line a second); nil
	// uses the server's logger. Go only.
	Logger *slog.Logger `yaml:"-"`
}

// RedisConfig is the Redis server that keeps the buckets when
// [Config.Redis] is set. The client New builds is configured as
// [RedisClientOptions] says, for the plugin's Timeout.
type RedisConfig struct {
	// Addr is the Redis server's address, host:port; required.
	Addr string `yaml:"addr"`
	// Username is the ACL user to authenticate as; "" uses the default
	// user (with PasswordEnv) or none.
	Username string `yaml:"username"`
	// PasswordEnv names the environment variable holding the password;
	// "" sends none. The password itself never goes in the file.
	PasswordEnv string `yaml:"password_env"`
	// DB is the database number; 0 by default.
	DB int `yaml:"db"`
	// TLS connects over TLS, checking the server's certificate against
	// the system's roots and Addr's host; off by default.
	TLS bool `yaml:"tls"`
	// Prefix starts every bucket's key; "" means DefaultRedisPrefix
	// ("hookflow:ratelimit:"). On a Redis Cluster, put a hash tag in it.
	Prefix string `yaml:"prefix"`
	// MaxIdle bounds how long a bucket's key lives after its last use,
	// such as "1h"; 0 means DefaultMaxIdle.
	MaxIdle time.Duration `yaml:"max_idle"`
}

// Validate reports what is wrong with the configuration: nil, or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path in a configuration file ("per_session.rate",
// "tools.search.burst", "redis.addr"). It checks everything that needs no
// server; the tools Tools names are checked by [Plugin.Check]. The
// plugin's Attach calls it.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	c.PerSession.check("per_session", add)
	c.PerPrincipal.check("per_principal", add)
	c.PerTool.check("per_tool", add)
	set := c.PerSession.Enabled() || c.PerPrincipal.Enabled() || c.PerTool.Enabled()
	for _, name := range slices.Sorted(keys(c.Tools)) {
		if name == "" {
			add("tools", "a tool name is empty")
			continue
		}
		c.Tools[name].check("tools."+name, add)
		set = set || c.Tools[name].Enabled()
	}
	if !set && len(errs) == 0 {
		add("", "no budget is set: set per_session, per_principal, per_tool or tools")
	}
	if c.Timeout < 0 {
		add("timeout", "must not be negative, got %v", c.Timeout)
	}
	if !c.OnBackendError.Valid() {
		add("on_backend_error", "unknown policy %d: want closed or open", uint8(c.OnBackendError))
	}
	if r := c.Redis; r != nil {
		if c.Backend != nil {
			add("redis", "Config.Backend is set too: keep one")
		}
		r.check(add)
	}
	return errors.Join(errs...)
}

// check reports what is wrong with a Limit at field.
func (l Limit) check(field string, add func(field, format string, args ...any)) {
	if !l.Enabled() {
		return
	}
	if math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Rate < 0 {
		add(field+".rate", "must be a finite number ≥ 0 (tokens per second), got %v", l.Rate)
	}
	if l.Burst < 1 {
		add(field+".burst", "must be at least 1 when the limit is set, got %d", l.Burst)
	}
}

// check reports what is wrong with a Redis configuration.
func (r *RedisConfig) check(add func(field, format string, args ...any)) {
	redisconf.Check(r.Addr, r.PasswordEnv, r.DB, add)
	if r.MaxIdle < 0 {
		add("redis.max_idle", "must not be negative, got %v", r.MaxIdle)
	}
}

// valid reports whether r has nothing to report.
func (r *RedisConfig) valid() bool { return redisconf.Valid(r.check) }

// backend returns the Redis backend r describes and its client, for calls
// bounded by timeout.
func (r *RedisConfig) backend(timeout time.Duration) (*Redis, *redis.Client) {
	opts := RedisClientOptions(r.Addr, timeout)
	opts.Username, opts.DB = r.Username, r.DB
	if r.PasswordEnv != "" {
		opts.Password = os.Getenv(r.PasswordEnv)
	}
	if r.TLS {
		host, _, _ := net.SplitHostPort(r.Addr)
		opts.TLSConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	client := redis.NewClient(opts)
	return NewRedis(client, &RedisOptions{Prefix: r.Prefix, MaxIdle: r.MaxIdle}), client
}

func keys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// limitUnits are the periods of a Limit's text form.
var limitUnits = [...]struct {
	name string
	per  time.Duration
}{{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}

// UnmarshalText reads a Limit as a configuration file writes it: "N/unit",
// N calls (a positive integer) per second (s), minute (m) or hour (h), in
// bursts of up to N: "10/s" is Per(10, time.Second). Anything else is a
// CodeInvalid *flows.Error, and l is left as it was. A Limit of another
// shape (a burst other than the calls per period, a fixed quota) is
// written as the mapping {rate: 0.5, burst: 10}. Limit has no MarshalText:
// not every Limit has a text form.
func (l *Limit) UnmarshalText(text []byte) error {
	s := string(text)
	num, unit, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(num)
	if ok && err == nil && n >= 1 {
		for _, u := range limitUnits {
			if u.name == unit {
				*l = Per(n, u.per)
				return nil
			}
		}
	}
	return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("want a limit such as 10/s, 100/m or 1000/h, got %q", s)}
}
