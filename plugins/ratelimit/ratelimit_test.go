package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
	"github.com/hookflow/hookflow/stages"
)

type empty struct{}

type out struct {
	Tool string `json:"tool"`
}

// newServer returns a server with tools "search" and "fetch" and the plugin.
func newServer(t testing.TB, cfg ratelimit.Config) (*framework.Server, *ratelimit.Plugin) {
	t.Helper()
	p := ratelimit.New(cfg)
	return plugintest.NewServer(t, &plugintest.ServerOptions{Name: "rl-test", Setup: addSearchAndFetch, Plugins: []framework.Plugin{p}}), p
}

// addSearchAndFetch adds the tools "search" and "fetch", each answering
// its own name.
func addSearchAndFetch(srv *framework.Server) error {
	for _, name := range []string{"search", "fetch"} {
		err := framework.AddToolFunc(srv, &mcp.Tool{Name: name, Description: name}, func(context.Context, *mcp.CallToolRequest, empty) (out, error) {
			return out{Tool: name}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func connect(t testing.TB, srv *framework.Server) *mcp.ClientSession {
	return plugintest.ConnectServer(t, srv)
}

// call calls tool and returns "ok", "isError: <text>", or the error.
func call(cs *mcp.ClientSession, tool string) string {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return fmt.Sprintf("protocol %d: %s", wire.Code, wire.Message)
		}
		return "error: " + err.Error()
	}
	if res.IsError {
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				return "isError: " + tc.Text
			}
		}
		return fmt.Sprintf("isError: %#v", res.Content)
	}
	return "ok"
}

const (
	sessionSpent = "isError: rate limit: too many calls in this session; this budget does not refill, do not retry"
	searchSpent  = `isError: rate limit: too many calls to tool "search"; this budget does not refill, do not retry`
	fetchSpent   = `isError: rate limit: too many calls to tool "fetch"; this budget does not refill, do not retry`
)

// TestBudgets: which calls each configuration allows, over in-memory
// sessions (which have no session ID: the plugin tells them apart).
func TestBudgets(t *testing.T) {
	quota := func(n int) ratelimit.Limit { return ratelimit.Limit{Burst: n} }
	type step struct {
		session int // index of the client session
		tool    string
		want    string
	}
	for _, tc := range []struct {
		name  string
		cfg   ratelimit.Config
		steps []step
	}{
		{
			name: "per session",
			cfg:  ratelimit.Config{PerSession: quota(2)},
			steps: []step{
				{0, "search", "ok"}, {0, "fetch", "ok"}, {0, "search", sessionSpent},
				{1, "search", "ok"}, {1, "search", "ok"}, {1, "fetch", sessionSpent},
			},
		},
		{
			name: "per tool, shared by sessions",
			cfg:  ratelimit.Config{PerTool: quota(2)},
			steps: []step{
				{0, "search", "ok"}, {1, "search", "ok"}, {0, "search", searchSpent}, {1, "search", searchSpent},
				{1, "fetch", "ok"}, {0, "fetch", "ok"}, {0, "fetch", fetchSpent},
			},
		},
		{
			name: "per-tool override and exemption",
			cfg:  ratelimit.Config{PerTool: quota(1), Tools: map[string]ratelimit.Limit{"search": quota(3), "fetch": {}}},
			steps: []step{
				{0, "search", "ok"}, {0, "search", "ok"}, {1, "search", "ok"}, {1, "search", searchSpent},
				{0, "fetch", "ok"}, {0, "fetch", "ok"}, {1, "fetch", "ok"},
			},
		},
		{
			name: "a refused call spends no budget",
			cfg:  ratelimit.Config{PerSession: quota(3), Tools: map[string]ratelimit.Limit{"search": quota(1)}},
			steps: []step{
				{0, "search", "ok"}, {0, "search", searchSpent}, {0, "search", searchSpent},
				// Two refusals spent nothing from the session: 2 calls left.
				{0, "fetch", "ok"}, {0, "fetch", "ok"}, {0, "fetch", sessionSpent},
			},
		},
		{
			name:  "the first spent budget is named",
			cfg:   ratelimit.Config{PerSession: quota(1), PerTool: quota(1)},
			steps: []step{{0, "search", "ok"}, {0, "search", sessionSpent}, {1, "search", searchSpent}},
		},
		{
			name:  "no principal without a token",
			cfg:   ratelimit.Config{PerPrincipal: quota(1)},
			steps: []step{{0, "search", "ok"}, {0, "search", "ok"}, {1, "fetch", "ok"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newServer(t, tc.cfg)
			sessions := []*mcp.ClientSession{connect(t, srv), connect(t, srv)}
			for i, s := range tc.steps {
				if got := call(sessions[s.session], s.tool); got != s.want {
					t.Errorf("step %d (session %d, %s):\n got %s\nwant %s", i, s.session, s.tool, got, s.want)
				}
			}
		})
	}
}

// TestRetryAfter: a refilling budget tells when to retry, in the message and
// in the LimitError that later hooks see, under a run error of code
// flows.CodeLimited.
func TestRetryAfter(t *testing.T) {
	srv, _ := newServer(t, ratelimit.Config{PerSession: ratelimit.Limit{Rate: 2, Burst: 1}})
	var mu sync.Mutex
	var seen *ratelimit.LimitError
	var decidedBy string
	var code flows.Code
	var flow flows.ID
	err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "audit", Fn: func(c *flows.Context) error {
		var le *ratelimit.LimitError
		if errors.As(c.Err(), &le) {
			var fe *flows.Error
			errors.As(c.Err(), &fe)
			mu.Lock()
			seen, decidedBy, code, flow = le, c.DecidedBy(), flows.CodeOf(c.Err()), fe.Flow
			mu.Unlock()
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	if got := call(cs, "search"); got != "ok" {
		t.Fatal(got)
	}
	got := call(cs, "search")
	if !regexp.MustCompile(`^isError: rate limit: too many calls in this session; retry after (\d{3}ms|500ms)$`).MatchString(got) {
		t.Errorf("got %q, want a retry-after hint of at most 500ms", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen == nil || seen.Dimension != ratelimit.Session || seen.Tool != "search" || seen.RetryAfter <= 0 || seen.RetryAfter > 500*time.Millisecond || seen.Limit.Rate != 2 {
		t.Errorf("LimitError = %+v", seen)
	}
	if !strings.HasSuffix(decidedBy, "/plugin:ratelimit/tools:call-tool/beforeValidation/take") {
		t.Errorf("DecidedBy = %q", decidedBy)
	}
	if code != flows.CodeLimited || flow != flows.ToolsCallTool {
		t.Errorf("run error: code %v in flow %q, want limited in %q", code, flow, flows.ToolsCallTool)
	}
}

// TestPerPrincipal: over HTTP with bearer tokens, a user's sessions share
// the user's budget.
func TestPerPrincipal(t *testing.T) {
	srv, _ := newServer(t, ratelimit.Config{PerPrincipal: ratelimit.Limit{Burst: 3}})
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		user, _, _ := strings.Cut(token, "-")
		return &sdkauth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	ts := httptest.NewServer(sdkauth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(ts.Close) // after the sessions' cleanups: LIFO
	connectAs := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: plugintest.BearerClient(token, nil)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	ann1, ann2, bob := connectAs("ann-1"), connectAs("ann-2"), connectAs("bob-1")
	const spent = "isError: rate limit: too many calls by this user; this budget does not refill, do not retry"
	for i, tc := range []struct {
		cs   *mcp.ClientSession
		want string
	}{{ann1, "ok"}, {ann2, "ok"}, {ann1, "ok"}, {ann2, spent}, {ann1, spent}, {bob, "ok"}} {
		if got := call(tc.cs, "search"); got != tc.want {
			t.Errorf("call %d: got %s, want %s", i, got, tc.want)
		}
	}
}

// failing is a backend that always fails.
type failing struct{ calls atomic.Int64 }

func (f *failing) Take(context.Context, []ratelimit.Bucket) (ratelimit.Decision, error) {
	f.calls.Add(1)
	return ratelimit.Decision{}, errors.New("backend exploded at 10.0.0.7:6379")
}

// TestBackendFailurePolicy: when the backend fails, the policy decides; the
// model never sees the backend's internals; failures are logged, throttled.
// The policy is the one flows.FailurePolicy, named by the words a
// configuration file uses; "" leaves the zero value, flows.FailClosed.
func TestBackendFailurePolicy(t *testing.T) {
	for _, tc := range []struct {
		word string
		want string
	}{
		{"", "isError: rate limit: the rate limiter is unavailable, so the call was refused; retry later"},
		{"closed", "isError: rate limit: the rate limiter is unavailable, so the call was refused; retry later"},
		{"open", "ok"},
	} {
		var policy flows.FailurePolicy
		if tc.word != "" {
			var err error
			if policy, err = flows.ParseFailurePolicy(tc.word); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("policy="+tc.word, func(t *testing.T) {
			var logs strings.Builder
			var mu sync.Mutex
			logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return logs.Write(p)
			}), nil))
			fb := &failing{}
			srv, _ := newServer(t, ratelimit.Config{PerSession: ratelimit.Limit{Rate: 1, Burst: 1}, Backend: fb, OnBackendError: policy, Logger: logger})
			var unwrapped error
			var code flows.Code
			_ = srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "audit", Fn: func(c *flows.Context) error {
				var ue *ratelimit.UnavailableError
				if errors.As(c.Err(), &ue) {
					unwrapped, code = ue.Unwrap(), flows.CodeOf(c.Err())
				}
				return nil
			}})
			cs := connect(t, srv)
			for range 5 {
				if got := call(cs, "search"); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
			}
			if fb.calls.Load() != 5 {
				t.Errorf("backend asked %d times", fb.calls.Load())
			}
			mu.Lock()
			defer mu.Unlock()
			if n := strings.Count(logs.String(), "ratelimit: backend failed"); n != 1 {
				t.Errorf("%d failure log lines for 5 failures within a second, want 1:\n%s", n, logs.String())
			}
			if policy == flows.FailClosed && (unwrapped == nil || !strings.Contains(unwrapped.Error(), "exploded")) {
				t.Errorf("UnavailableError.Unwrap() = %v", unwrapped)
			}
			// No budget is spent: the refusal is the plugin's, not a limit.
			if policy == flows.FailClosed && code != flows.CodeAborted {
				t.Errorf("unavailable: run error code %v, want aborted", code)
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestUnreachableRedis: with Redis refusing connections or never
// answering, calls are decided by the policy within the plugin's Timeout.
func TestUnreachableRedis(t *testing.T) {
	for _, where := range []struct {
		name string
		addr func(testing.TB) string
	}{{"refused", redistest.RefusingAddr}, {"silent", redistest.SilentAddr}} {
		for _, tc := range []struct {
			policy flows.FailurePolicy
			want   string
		}{
			{flows.FailClosed, "isError: rate limit: the rate limiter is unavailable, so the call was refused; retry later"},
			{flows.FailOpen, "ok"},
		} {
			t.Run(where.name+"/"+tc.policy.String(), func(t *testing.T) {
				// The client's own timeouts are long: the plugin's Timeout bounds the call.
				client := redis.NewClient(ratelimit.RedisClientOptions(where.addr(t), time.Minute))
				defer client.Close()
				srv, _ := newServer(t, ratelimit.Config{
					PerSession:     ratelimit.Limit{Rate: 1, Burst: 1},
					Backend:        ratelimit.NewRedis(client, nil),
					OnBackendError: tc.policy,
					Timeout:        150 * time.Millisecond,
				})
				cs := connect(t, srv)
				for range 3 {
					start := time.Now()
					if got := call(cs, "search"); got != tc.want {
						t.Errorf("got %s, want %s", got, tc.want)
					}
					if el := time.Since(start); el > 2*time.Second {
						t.Errorf("the call took %v; the 150ms Timeout should bound it", el)
					}
				}
			})
		}
	}
}

// TestRedisPlugin: the plugin over a real Redis, two server instances
// sharing a per-tool budget.
func TestRedisPlugin(t *testing.T) {
	addr := redisAddr(t)
	prefix := fmt.Sprintf("hookflow-test:plugin:%d:", time.Now().UnixNano())
	var sessions []*mcp.ClientSession
	for range 2 {
		client := redis.NewClient(ratelimit.RedisClientOptions(addr, 5*time.Second))
		t.Cleanup(func() { _ = client.Close() })
		srv, _ := newServer(t, ratelimit.Config{
			PerTool: ratelimit.Limit{Burst: 3},
			Backend: ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: prefix}),
			Timeout: 5 * time.Second,
		})
		sessions = append(sessions, connect(t, srv))
	}
	var got []string
	for i := range 5 {
		got = append(got, call(sessions[i%2], "search"))
	}
	want := []string{"ok", "ok", "ok", searchSpent, searchSpent}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestBadConfig: a bad configuration stops Start with an error naming the
// plugin and the field.
func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ratelimit.Config
		want []string
	}{
		{"nothing set", ratelimit.Config{}, []string{"no budget is set"}},
		{"only exemptions", ratelimit.Config{Tools: map[string]ratelimit.Limit{"search": {}}}, []string{"no budget is set"}},
		{"negative rate", ratelimit.Config{PerSession: ratelimit.Limit{Rate: -1, Burst: 1}}, []string{"per_session.rate: must be a finite number ≥ 0", "got -1"}},
		{"NaN rate", ratelimit.Config{PerTool: ratelimit.Limit{Rate: math.NaN(), Burst: 1}}, []string{"per_tool.rate"}},
		{"infinite rate", ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: math.Inf(1), Burst: 1}}, []string{"per_principal.rate"}},
		{"rate without burst", ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: 5}}, []string{"per_principal.burst: must be at least 1", "got 0"}},
		{"negative burst", ratelimit.Config{PerSession: ratelimit.Limit{Burst: -2}}, []string{"per_session.burst"}},
		{"bad tool limit", ratelimit.Config{Tools: map[string]ratelimit.Limit{"search": {Rate: 1}}}, []string{"tools.search.burst"}},
		{"empty tool name", ratelimit.Config{Tools: map[string]ratelimit.Limit{"": {Burst: 1}}}, []string{"tools: a tool name is empty"}},
		{"zero period", ratelimit.Config{PerSession: ratelimit.Per(5, 0)}, []string{"per_session.rate"}},
		{"negative timeout", ratelimit.Config{PerSession: ratelimit.Limit{Burst: 1}, Timeout: -time.Second}, []string{"timeout: must not be negative"}},
		{"unknown policy", ratelimit.Config{PerSession: ratelimit.Limit{Burst: 1}, OnBackendError: 3}, []string{"on_backend_error: unknown policy 3"}},
		{"several at once", ratelimit.Config{PerSession: ratelimit.Limit{Rate: -1, Burst: 0}, Timeout: -1}, []string{"per_session.rate", "per_session.burst", "timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bad", Version: "1"}, nil)
			if err := srv.Use(ratelimit.New(tc.cfg)); err != nil {
				t.Fatal(err)
			}
			err := srv.Start()
			if err == nil {
				t.Fatal("Start succeeded")
			}
			for _, want := range append([]string{`plugin "ratelimit"`}, tc.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestPer(t *testing.T) {
	if got := ratelimit.Per(60, time.Minute); got != (ratelimit.Limit{Rate: 1, Burst: 60}) {
		t.Errorf("Per(60, time.Minute) = %+v", got)
	}
	if got := ratelimit.Per(10, time.Second); got != (ratelimit.Limit{Rate: 10, Burst: 10}) {
		t.Errorf("Per(10, time.Second) = %+v", got)
	}
}

func TestLimitErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err  ratelimit.LimitError
		want string
	}{
		{ratelimit.LimitError{Dimension: ratelimit.Session, RetryAfter: 1234567 * time.Microsecond}, "rate limit: too many calls in this session; retry after 1.3s"},
		{ratelimit.LimitError{Dimension: ratelimit.Principal, RetryAfter: 2500 * time.Microsecond}, "rate limit: too many calls by this user; retry after 3ms"},
		{ratelimit.LimitError{Dimension: ratelimit.Tool, Tool: "search", RetryAfter: 90*time.Second + 1}, `rate limit: too many calls to tool "search"; retry after 1m31s`},
		{ratelimit.LimitError{Dimension: ratelimit.Tool, Tool: "x", RetryAfter: ratelimit.Never}, `rate limit: too many calls to tool "x"; this budget does not refill, do not retry`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	for d, want := range map[ratelimit.Dimension]string{ratelimit.Session: "session", ratelimit.Principal: "principal", ratelimit.Tool: "tool", 0: "Dimension(0)"} {
		if d.String() != want {
			t.Errorf("%d.String() = %q", int(d), d.String())
		}
	}
}

func TestCheck(t *testing.T) {
	srv, p := newServer(t, ratelimit.Config{Tools: map[string]ratelimit.Limit{"search": {Burst: 1}, "serach": {Burst: 1}}})
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "not attached") {
		t.Errorf("before Start: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	err := p.Check()
	if err == nil || !strings.Contains(err.Error(), `tools.serach: the server has no tool "serach"`) || strings.Contains(err.Error(), `"search"`) {
		t.Errorf("Check() = %v", err)
	}
}
