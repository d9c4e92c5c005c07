package ratelimit_test

import (
	"encoding"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// TestConfigValidate: each setting a file can get wrong is reported at
// its path in the file's spelling, with a message the user can act on.
func TestConfigValidate(t *testing.T) {
	one := ratelimit.Per(10, time.Second)
	t.Setenv("RL_TEST_PASSWORD", "secret")
	for _, tc := range []struct {
		name string
		cfg  ratelimit.Config
		want []string
	}{
		{"valid", ratelimit.Config{PerSession: one, Tools: map[string]ratelimit.Limit{"slow": ratelimit.Per(1, time.Minute), "free": {}},
			OnBackendError: flows.FailOpen, Timeout: time.Second,
			Redis: &ratelimit.RedisConfig{Addr: "127.0.0.1:6379", PasswordEnv: "RL_TEST_PASSWORD", DB: 2, MaxIdle: time.Hour}}, nil},
		{"nothing set", ratelimit.Config{}, []string{": no budget is set: set per_session, per_principal, per_tool or tools"}},
		{"only exemptions", ratelimit.Config{Tools: map[string]ratelimit.Limit{"search": {}}}, []string{": no budget is set: set per_session, per_principal, per_tool or tools"}},
		{"negative rate", ratelimit.Config{PerSession: ratelimit.Limit{Rate: -1, Burst: 1}}, []string{"per_session.rate: must be a finite number ≥ 0 (tokens per second), got -1"}},
		{"NaN rate", ratelimit.Config{PerTool: ratelimit.Limit{Rate: math.NaN(), Burst: 1}}, []string{"per_tool.rate: must be a finite number ≥ 0 (tokens per second), got NaN"}},
		{"no burst", ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: 5}}, []string{"per_principal.burst: must be at least 1 when the limit is set, got 0"}},
		{"tool limit", ratelimit.Config{Tools: map[string]ratelimit.Limit{"search": {Rate: 1}}}, []string{"tools.search.burst: must be at least 1 when the limit is set, got 0"}},
		{"empty tool name", ratelimit.Config{PerTool: one, Tools: map[string]ratelimit.Limit{"": one}}, []string{"tools: a tool name is empty"}},
		{"timeout", ratelimit.Config{PerTool: one, Timeout: -time.Second}, []string{"timeout: must not be negative, got -1s"}},
		{"policy", ratelimit.Config{PerTool: one, OnBackendError: 9}, []string{"on_backend_error: unknown policy 9: want closed or open"}},
		{"redis without addr", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{}}, []string{"redis.addr: required: the Redis server's host:port, such as 127.0.0.1:6379"}},
		{"redis addr", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{Addr: "localhost"}}, []string{`redis.addr: want host:port, such as 127.0.0.1:6379, got "localhost"`}},
		{"redis port", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{Addr: "localhost:0"}}, []string{`redis.addr: want host:port, such as 127.0.0.1:6379, got "localhost:0"`}},
		{"redis password", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{Addr: "r:6379", PasswordEnv: "RL_TEST_UNSET"}}, []string{"redis.password_env: environment variable RL_TEST_UNSET is not set"}},
		{"redis db", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{Addr: "r:6379", DB: -1}}, []string{"redis.db: must not be negative, got -1"}},
		{"redis max idle", ratelimit.Config{PerTool: one, Redis: &ratelimit.RedisConfig{Addr: "r:6379", MaxIdle: -time.Minute}}, []string{"redis.max_idle: must not be negative, got -1m0s"}},
		{"redis and backend", ratelimit.Config{PerTool: one, Backend: ratelimit.NewMemory(nil), Redis: &ratelimit.RedisConfig{Addr: "r:6379"}}, []string{"redis: Config.Backend is set too: keep one"}},
		{"several, in order", ratelimit.Config{PerSession: ratelimit.Limit{Rate: -1}, Timeout: -1},
			[]string{"per_session.rate: must be a finite number ≥ 0 (tokens per second), got -1", "per_session.burst: must be at least 1 when the limit is set, got 0", "timeout: must not be negative, got -1ns"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldLines(t, tc.cfg.Validate())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestLimitUnmarshalText: a file's "N/unit" is read exactly as the
// gateway has always read it, Per(N, unit), and nothing else is.
func TestLimitUnmarshalText(t *testing.T) {
	var _ encoding.TextUnmarshaler = new(ratelimit.Limit)
	for _, tc := range []struct {
		in   string
		want ratelimit.Limit
	}{
		{"10/s", ratelimit.Per(10, time.Second)},
		{"1/m", ratelimit.Per(1, time.Minute)},
		{"1000/h", ratelimit.Per(1000, time.Hour)},
		{"+5/s", ratelimit.Per(5, time.Second)}, // strconv.Atoi's reading, as before
	} {
		l := ratelimit.Limit{Rate: 99, Burst: 99}
		if err := l.UnmarshalText([]byte(tc.in)); err != nil || l != tc.want {
			t.Errorf("UnmarshalText(%q) = %+v, %v; want %+v", tc.in, l, err, tc.want)
		}
	}
	for _, in := range []string{"", "10", "10/", "/s", "0/s", "-1/s", "10/d", "10/S", "1.5/s", "10 /s", "10/sec", "ten/s"} {
		l := ratelimit.Per(3, time.Second)
		err := l.UnmarshalText([]byte(in))
		want := fmt.Sprintf("hookflow: invalid: want a limit such as 10/s, 100/m or 1000/h, got %q", in)
		if err == nil || err.Error() != want || flows.CodeOf(err) != flows.CodeInvalid {
			t.Errorf("UnmarshalText(%q) = %v; want %q", in, err, want)
		}
		if l != ratelimit.Per(3, time.Second) {
			t.Errorf("UnmarshalText(%q) changed the limit to %+v", in, l)
		}
	}
}

// TestRedisFromConfig: a Redis section builds the Redis backend, whose
// budgets are shared by two plugins with the same prefix (as two server
// instances would share them); an invalid section builds nothing (Attach
// refuses it).
func TestRedisFromConfig(t *testing.T) {
	addr := redisAddr(t)
	prefix := fmt.Sprintf("hookflow-test:config:%d:", time.Now().UnixNano())
	cfg := ratelimit.Config{PerTool: ratelimit.Per(1, time.Hour), Redis: &ratelimit.RedisConfig{Addr: addr, Prefix: prefix}}
	srv1, p1 := newServer(t, cfg)
	srv2, p2 := newServer(t, cfg)
	t.Cleanup(func() { p1.Close(); p2.Close() })
	if _, ok := p1.Backend().(*ratelimit.Redis); !ok {
		t.Fatalf("Backend() = %T, want *ratelimit.Redis", p1.Backend())
	}
	if err := srv1.Start(); err != nil {
		t.Fatal(err)
	}
	if err := srv2.Start(); err != nil {
		t.Fatal(err)
	}
	if got := call(connect(t, srv1), "search"); got != "ok" {
		t.Fatalf("first call: %s", got)
	}
	if got := call(connect(t, srv2), "search"); !strings.HasPrefix(got, `isError: rate limit: too many calls to tool "search"`) {
		t.Errorf("second call, on the other instance: %s; want the shared budget spent", got)
	}

	p := ratelimit.New(ratelimit.Config{PerTool: ratelimit.Per(1, time.Hour), Redis: &ratelimit.RedisConfig{}})
	if _, ok := p.Backend().(*ratelimit.Memory); !ok {
		t.Errorf("an invalid redis section built %T", p.Backend())
	}
}

// TestRedisFromConfigFailOpen: the failure policy a file sets applies to
// the backend the file describes: an unreachable Redis lets calls
// through when it is open, refuses them when it is closed.
func TestRedisFromConfigFailOpen(t *testing.T) {
	addr := redistest.RefusingAddr(t)
	for _, tc := range []struct {
		policy string
		want   string
	}{
		{"open", "ok"},
		{"closed", "isError: rate limit: the rate limiter is unavailable, so the call was refused; retry later"},
	} {
		var policy flows.FailurePolicy
		if err := policy.UnmarshalText([]byte(tc.policy)); err != nil {
			t.Fatal(err)
		}
		srv, p := newServer(t, ratelimit.Config{PerTool: ratelimit.Per(1, time.Hour), OnBackendError: policy,
			Timeout: 2 * time.Second, Redis: &ratelimit.RedisConfig{Addr: addr}, Logger: slog.New(slog.DiscardHandler)})
		t.Cleanup(func() { p.Close() })
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		if got := call(connect(t, srv), "search"); got != tc.want {
			t.Errorf("on_backend_error %s: %s, want %s", tc.policy, got, tc.want)
		}
	}
}
