// Package redisconf checks the Redis server settings that the plugins
// backed by Redis (ratelimit, sessiongate) read from a configuration file,
// so that each reports a wrong address, password variable or database the
// same way.
package redisconf

import (
	"net"
	"os"
	"strconv"
)

// Check reports, through add, what is wrong with a Redis server's
// settings: addr must be host:port, the variable passwordEnv names (when
// set) must be set, db must not be negative. Fields are named as the
// file spells them under the plugin's "redis" section.
func Check(addr, passwordEnv string, db int, add func(field, format string, args ...any)) {
	if addr == "" {
		add("redis.addr", "required: the Redis server's host:port, such as 127.0.0.1:6379")
	} else if _, port, err := net.SplitHostPort(addr); err != nil || !validPort(port) {
		add("redis.addr", "want host:port, such as 127.0.0.1:6379, got %q", addr)
	}
	if passwordEnv != "" && os.Getenv(passwordEnv) == "" {
		add("redis.password_env", "environment variable %s is not set", passwordEnv)
	}
	if db < 0 {
		add("redis.db", "must not be negative, got %d", db)
	}
}

// Valid reports whether check, a Check-like function, has nothing to
// report.
func Valid(check func(add func(field, format string, args ...any))) bool {
	ok := true
	check(func(string, string, ...any) { ok = false })
	return ok
}

func validPort(p string) bool {
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && n > 0
}
