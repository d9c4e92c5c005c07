package plugins_test

// Issue 5's "Bad input and faults" with the four plugins on together (auth,
// ratelimit, cache, audit) over real streamable HTTP:
//
//   - TestAllPluginsConcurrent: 1,000 concurrent calls across 10 sessions,
//     every call answered, budgets exact, scope denials explained, cache hits
//     and audit events accounted for one by one (memory and Redis backends).
//   - TestAuditSinkFailingDoesNotBlock: an audit sink that blocks forever and
//     one that fails or panics: calls proceed, drops are counted.
//   - TestRedisUnreachableFailsClosedFast: Redis refusing connections or
//     accepting and never answering: refused within the rate limiter's
//     timeout (fail-closed, the default), or let through (fail-open).
//
// Run with -race. The Redis cases use HOOKFLOW_REDIS_ADDR, else start
// redis-server from PATH, else skip — or fail when HOOKFLOW_REQUIRE_REDIS=1.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/internal/redistest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// ---------------------------------------------------------------------------
// Redis for the tests

// redisServer is the Redis the tests use (see internal/redistest).
var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

// redisAddr returns the address of a Redis server, or skips the test (fails
// it when HOOKFLOW_REQUIRE_REDIS=1).
func redisAddr(t testing.TB) string { return redisServer.Addr(t) }

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

// refusingAddr returns a loopback address nothing listens on.
func refusingAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// silentAddr returns the address of a listener that accepts connections and
// never answers.
func silentAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// ---------------------------------------------------------------------------
// Users, tokens and tools

type user struct {
	name   string
	token  string // secret: searched for in every audit record
	deploy bool   // holds scope deploy:write
}

// Three users may deploy, two may not.
var users = []user{
	{"ann", "tok-ann-6c1f0e9d8b7a65432100", true},
	{"bob", "tok-bob-0a9b8c7d6e5f40312233", true},
	{"eve", "tok-eve-55aa66bb77cc88dd99ee", true},
	{"cy", "tok-cy-1029384756abcdef0918", false},
	{"dee", "tok-dee-fedcba98765432100123", false},
}

func verifier(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	for _, u := range users {
		if u.token == token {
			scopes := []string{"mcp"}
			if u.deploy {
				scopes = append(scopes, "deploy:write")
			}
			return &sdkauth.TokenInfo{UserID: u.name, Scopes: scopes, Expiration: time.Now().Add(time.Hour)}, nil
		}
	}
	return nil, sdkauth.ErrInvalidToken
}

// The tools: "lookup" is read-only (cached), "deploy" needs deploy:write,
// "search" has a tool budget.
type (
	lookupIn struct {
		Key int `json:"key"`
	}
	lookupOut struct {
		Key int `json:"key"`
		// Serial numbers lookup's executions: a cached answer repeats the
		// serial of the execution it was stored from.
		Serial int64 `json:"serial"`
	}
	deployIn struct {
		Target string `json:"target"`
	}
	deployOut struct {
		Deployed string `json:"deployed"`
	}
	searchIn struct {
		Q string `json:"q"`
	}
	searchOut struct {
		Q string `json:"q"`
	}
)

const (
	scopeDenial = `permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`
	unavailable = "rate limit: the rate limiter is unavailable, so the call was refused; retry later"

	authHook  = "/plugin:auth/tools:call-tool/beforeValidation/scopes"
	limitHook = "/plugin:ratelimit/tools:call-tool/beforeValidation/take"
	cacheHook = "/plugin:cache/tools:call-tool/beforeExecute/lookup"
)

// rateRefusal is the text of a call refused by an exhausted budget; with a
// rate of ~0 the retry-after hint is decades away.
var rateRefusal = regexp.MustCompile(`^rate limit: too many calls (by this user|to tool "search"); retry after \d+h[0-9hms]*$`)

// ---------------------------------------------------------------------------
// The stack: a server with the tools and the four plugins, served over HTTP

type stackConfig struct {
	ratelimit ratelimit.Config
	audits    []audit.Config
	// challenge keeps the auth plugin's HTTP 403 insufficient-scope response
	// (its default); otherwise denials are in-band isError results, which
	// the audit plugin sees.
	challenge bool
	// jsonResponse answers each POST with one JSON body instead of an SSE
	// stream (the SDK's default): the same plugins' work at half the cost.
	jsonResponse bool
}

type stack struct {
	url       string
	transport *http.Transport
	auth      *auth.Plugin
	rl        *ratelimit.Plugin
	cache     *cache.Plugin
	audits    []*audit.Plugin

	serial                 atomic.Int64 // lookup's executions
	deployRuns, searchRuns atomic.Int64
	sessionUser            sync.Map // session ID → user name
	listCalls              atomic.Int64
}

func newStack(t *testing.T, cfg stackConfig) *stack {
	t.Helper()
	s := &stack{}
	srv := framework.NewServer(&mcp.Implementation{Name: "all-plugins", Version: "1"}, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(framework.AddTool(srv, framework.Tool[struct{}, lookupIn, lookupOut]{
		Tool: &mcp.Tool{Name: "lookup", Description: "read-only lookup", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in lookupIn) (lookupOut, error) {
			return lookupOut{Key: in.Key, Serial: s.serial.Add(1)}, nil
		},
	}))
	must(framework.AddTool(srv, framework.Tool[struct{}, deployIn, deployOut]{
		Tool:   &mcp.Tool{Name: "deploy", Description: "deploys"},
		Scopes: []string{"deploy:write"},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in deployIn) (deployOut, error) {
			s.deployRuns.Add(1)
			return deployOut{Deployed: in.Target}, nil
		},
	}))
	must(framework.AddTool(srv, framework.Tool[struct{}, searchIn, searchOut]{
		Tool: &mcp.Tool{Name: "search", Description: "searches"},
		Execute: func(_ struct{}, _ context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
			s.searchRuns.Add(1)
			return searchOut{Q: in.Q}, nil
		},
	}))

	s.auth = auth.New(auth.Config{Verifier: verifier, Scopes: []string{"mcp"}, NoScopeChallenge: !cfg.challenge})
	s.rl = ratelimit.New(cfg.ratelimit)
	s.cache = cache.New(cache.Config{TTL: time.Hour})
	must(srv.Use(s.auth))
	must(srv.Use(s.rl))
	must(srv.Use(s.cache))
	for _, ac := range cfg.audits {
		a := audit.New(ac)
		// Registered before the HTTP server's cleanup: closed after it.
		t.Cleanup(func() { _ = a.Close() })
		s.audits = append(s.audits, a)
		must(srv.Use(a))
	}
	h, err := s.auth.Handler(srv, &mcp.StreamableHTTPOptions{JSONResponse: cfg.jsonResponse})
	must(err)
	must(s.rl.Check())
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	s.url = ts.URL
	s.transport = http.DefaultTransport.(*http.Transport).Clone()
	s.transport.MaxIdleConnsPerHost = 256 // 1,000 concurrent POSTs: reuse connections
	t.Cleanup(s.transport.CloseIdleConnections)
	return s
}

// bearer adds the token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect opens a session for u and lists its tools: deploy is hidden from
// users without deploy:write.
func (s *stack) connect(t *testing.T, u user) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client-" + u.name, Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{u.token, s.transport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", u.name, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s.sessionUser.Store(cs.ID(), u.name)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%s: tools/list: %v", u.name, err)
	}
	s.listCalls.Add(1)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"lookup", "search"}
	if u.deploy {
		want = []string{"deploy", "lookup", "search"}
	}
	if !slices.Equal(names, want) {
		t.Errorf("%s: tools/list = %v, want %v", u.name, names, want)
	}
	return cs
}

// kind is what the client got from a call.
type kind int

const (
	answered   kind = iota // a result: from the tool or the cache
	scopeDeny              // refused by the auth plugin, with the reason
	limited                // refused by a spent budget, with a retry-after hint
	unavail                // refused: the rate limiter's backend is down
	unexpected             // anything else, including no answer at all
)

func (k kind) String() string {
	return [...]string{"answered", "scopeDeny", "limited", "unavail", "unexpected"}[k]
}

// classify sorts what a call got. In challenge mode a scope denial is an
// HTTP 403, which the SDK client (v1.8.0) reports as a call error carrying
// the JSON-RPC error's message.
func classify(res *mcp.CallToolResult, err error, challenge bool) (kind, string) {
	if err != nil {
		if challenge && strings.Contains(err.Error(), scopeDenial) {
			return scopeDeny, err.Error()
		}
		return unexpected, "error: " + err.Error()
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	switch {
	case !res.IsError:
		return answered, text
	case text == scopeDenial && !challenge:
		return scopeDeny, text
	case rateRefusal.MatchString(text):
		return limited, text
	case text == unavailable:
		return unavail, text
	}
	return unexpected, "isError: " + text
}

// ---------------------------------------------------------------------------
// Audit sinks

// rec is one audit event as a slog.Handler sink received it.
type rec struct {
	flow, entity, session, request, principal, outcome, decidedBy, err string
	all                                                                string // every attribute, for secrets
}

// recorder is a slog.Handler collecting audit events.
type recorder struct {
	mu  sync.Mutex
	evs []rec
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }

func (r *recorder) Handle(_ context.Context, sr slog.Record) error {
	var ev rec
	var all strings.Builder
	all.WriteString(sr.Message)
	sr.Attrs(func(a slog.Attr) bool {
		v := a.Value.String()
		if raw, ok := a.Value.Any().(json.RawMessage); ok {
			v = string(raw)
		}
		fmt.Fprintf(&all, " %s=%s", a.Key, v)
		switch a.Key {
		case "flow":
			ev.flow = v
		case "entity":
			ev.entity = v
		case "session_id":
			ev.session = v
		case "request_id":
			ev.request = v
		case "principal":
			ev.principal = v
		case "outcome":
			ev.outcome = v
		case "decided_by":
			ev.decidedBy = v
		case "error":
			ev.err = v
		}
		return true
	})
	ev.all = all.String()
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
	return nil
}

func (r *recorder) events() []rec {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// stuckSink blocks every write until released: a sink that hangs.
type stuckSink struct {
	recorder
	release chan struct{}
	entered atomic.Int64
	once    sync.Once
}

func (s *stuckSink) Handle(ctx context.Context, sr slog.Record) error {
	s.entered.Add(1)
	<-s.release
	return s.recorder.Handle(ctx, sr)
}

func (s *stuckSink) unblock() { s.once.Do(func() { close(s.release) }) }

// failingSink fails every write: an error, or a panic every other time.
type failingSink struct{ n atomic.Int64 }

func (f *failingSink) Enabled(context.Context, slog.Level) bool { return true }
func (f *failingSink) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f *failingSink) WithGroup(string) slog.Handler            { return f }
func (f *failingSink) Handle(context.Context, slog.Record) error {
	if f.n.Add(1)%2 == 0 {
		panic("audit sink exploded")
	}
	return errors.New("audit sink: disk full")
}

func flush(t *testing.T, a *audit.Plugin) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("audit Flush: %v", err)
	}
}

// ---------------------------------------------------------------------------
// 1,000 concurrent calls

// The load: 5 users × 2 sessions × 100 calls, each session making 40 calls of
// lookup (4 keys), 35 of deploy and 25 of search. Budgets (rate ~0, so a
// budget is exactly its burst for the test's lifetime):
//
//   - per principal 140. The auth plugin runs first (priority 1000 > 900),
//     so a denied deploy spends nothing. A user with deploy:write makes
//     2×(40+35) = 150 > 140 calls that only the principal budget limits: the
//     budget is spent, exactly 140 of its calls are allowed. A user without
//     makes 2×(40+25) = 130 ≤ 140 calls past auth: never refused by it.
//   - per tool, for search only, 60. The users without deploy:write alone
//     make 2×2×25 = 100 > 60 search calls that no other budget refuses: the
//     budget is spent, exactly 60 searches are allowed.
//
// The cache's lookup runs in beforeExecute, after the rate limiter's
// beforeValidation hook: a refused lookup never reaches the cache, an
// allowed one is a hit or a miss. The cache is keyed per principal.
const (
	sessionsPerUser             = 2
	perSession                  = nLookup + nDeploy + nSearch
	nLookup, nDeploy, nSearch   = 40, 35, 25
	lookupKeys                  = 4
	principalBurst, searchBurst = 140, 60
	nearZero                    = 1e-9 // tokens per second: one per ~30 years
	totalCalls                  = 5 * sessionsPerUser * perSession
	deniedDeploys               = 2 * sessionsPerUser * nDeploy // by cy and dee
	callTimeout                 = time.Minute                   // generous: "answered" means before it
	auditQueue                  = 4096
)

func TestAllPluginsConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		redis bool
		cfg   stackConfig
	}{
		{name: "memory/sse"},
		{name: "memory/json/http-403-denials", cfg: stackConfig{jsonResponse: true, challenge: true}},
		{name: "redis/json", redis: true, cfg: stackConfig{jsonResponse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var backend ratelimit.Backend = ratelimit.NewMemory(nil)
			if tc.redis {
				backend = newRedisBackend(t)
			}
			testConcurrent(t, backend, tc.cfg)
		})
	}
}

type callRecord struct {
	user   user
	tool   string
	kind   kind
	text   string
	serial int64 // lookup answers
}

func testConcurrent(t *testing.T, backend ratelimit.Backend, cfg stackConfig) {
	sink := &recorder{}
	challenge := cfg.challenge
	cfg.ratelimit = ratelimit.Config{
		PerPrincipal: ratelimit.Limit{Rate: nearZero, Burst: principalBurst},
		Tools:        map[string]ratelimit.Limit{"search": {Rate: nearZero, Burst: searchBurst}},
		Backend:      backend,
		Timeout:      30 * time.Second, // a Redis decision must not time out under -race on 2 cores
	}
	cfg.audits = []audit.Config{{Handler: sink, QueueSize: auditQueue}}
	s := newStack(t, cfg)
	aud := s.audits[0]

	type sess struct {
		u  user
		cs *mcp.ClientSession
	}
	var all []sess
	for _, u := range users {
		for range sessionsPerUser {
			all = append(all, sess{u, s.connect(t, u)})
		}
	}

	// Each session's calls: the mix, interleaved.
	type op struct {
		tool string
		args map[string]any
	}
	var ops []op
	for i := 0; len(ops) < perSession; i++ {
		if i < nSearch {
			ops = append(ops, op{"search", map[string]any{"q": "q" + strconv.Itoa(i)}})
		}
		if i < nLookup {
			ops = append(ops, op{"lookup", map[string]any{"key": i % lookupKeys}})
		}
		if i < nDeploy {
			ops = append(ops, op{"deploy", map[string]any{"target": "t" + strconv.Itoa(i)}})
		}
	}

	records := make([]callRecord, 0, totalCalls)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, se := range all {
		for _, o := range ops {
			wg.Go(func() {
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				res, err := se.cs.CallTool(ctx, &mcp.CallToolParams{Name: o.tool, Arguments: o.args})
				r := callRecord{user: se.u, tool: o.tool}
				r.kind, r.text = classify(res, err, challenge)
				if r.kind == answered && o.tool == "lookup" {
					var out lookupOut
					b, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(b, &out); err != nil || out.Serial == 0 || out.Key != o.args["key"] {
						r.kind, r.text = unexpected, fmt.Sprintf("lookup answer %s (%v)", b, err)
					}
					r.serial = out.Serial
				}
				mu.Lock()
				records = append(records, r)
				mu.Unlock()
			})
		}
	}
	close(start)
	wg.Wait()

	// Every call answered, each with a known outcome.
	if len(records) != totalCalls {
		t.Fatalf("%d calls recorded, want %d", len(records), totalCalls)
	}
	count := map[kind]int{}
	type key struct {
		user string
		tool string
		kind kind
	}
	per := map[key]int{}
	for _, r := range records {
		count[r.kind]++
		per[key{r.user.name, r.tool, r.kind}]++
		if r.kind == unexpected && count[unexpected] <= 5 {
			t.Errorf("%s: %s: unexpected answer: %s", r.user.name, r.tool, r.text)
		}
		if r.kind == limited && r.tool != "search" && !strings.Contains(r.text, "by this user") {
			t.Errorf("%s: %s refused by a budget it does not have: %s", r.user.name, r.tool, r.text)
		}
	}
	if count[unexpected] > 0 || count[unavail] > 0 {
		t.Fatalf("calls not answered as expected: %v", count)
	}

	// Scope denials: every deploy of a user without deploy:write, with the
	// reason, and nothing else.
	if count[scopeDeny] != deniedDeploys {
		t.Errorf("%d calls denied by scope, want %d", count[scopeDeny], deniedDeploys)
	}
	allowedSearch, allowedLookups := 0, 0
	for _, u := range users {
		allowed := per[key{u.name, "lookup", answered}] + per[key{u.name, "deploy", answered}] + per[key{u.name, "search", answered}]
		allowedSearch += per[key{u.name, "search", answered}]
		allowedLookups += per[key{u.name, "lookup", answered}]
		byUser := 0
		for _, r := range records {
			if r.user.name == u.name && r.kind == limited && strings.Contains(r.text, "by this user") {
				byUser++
			}
		}
		if u.deploy {
			// Budget exact: the principal budget is spent, exactly its burst
			// was allowed.
			if allowed != principalBurst {
				t.Errorf("%s: %d calls allowed, want exactly the principal burst %d", u.name, allowed, principalBurst)
			}
			if n := per[key{u.name, "deploy", scopeDeny}]; n != 0 {
				t.Errorf("%s: %d deploys denied by scope, want 0", u.name, n)
			}
			if byUser == 0 {
				t.Errorf("%s: never refused by the principal budget", u.name)
			}
		} else {
			if n := per[key{u.name, "deploy", scopeDeny}]; n != sessionsPerUser*nDeploy {
				t.Errorf("%s: %d deploys denied by scope, want all %d", u.name, n, sessionsPerUser*nDeploy)
			}
			// Denied calls spent no budget: 130 calls past auth, under 140.
			if byUser != 0 {
				t.Errorf("%s: %d calls refused by the principal budget, want 0 (denied calls must not spend it)", u.name, byUser)
			}
			if n := per[key{u.name, "lookup", answered}]; n != sessionsPerUser*nLookup {
				t.Errorf("%s: %d lookups answered, want all %d", u.name, n, sessionsPerUser*nLookup)
			}
		}
	}
	if allowedSearch != searchBurst {
		t.Errorf("%d searches allowed, want exactly the tool burst %d", allowedSearch, searchBurst)
	}
	if n := s.searchRuns.Load(); n != searchBurst {
		t.Errorf("search executed %d times, want %d", n, searchBurst)
	}
	allowedDeploys := per[key{"ann", "deploy", answered}] + per[key{"bob", "deploy", answered}] + per[key{"eve", "deploy", answered}]
	if n := s.deployRuns.Load(); n != int64(allowedDeploys) {
		t.Errorf("deploy executed %d times, want %d (the allowed deploys)", n, allowedDeploys)
	}

	// Cache: each allowed lookup is a hit or a miss; a miss executes the
	// tool (a new serial), a hit repeats a stored serial.
	serials := map[int64]bool{}
	for _, r := range records {
		if r.tool == "lookup" && r.kind == answered {
			serials[r.serial] = true
		}
	}
	st := s.cache.Stats()
	executed := s.serial.Load()
	hits := allowedLookups - len(serials)
	switch {
	case int64(len(serials)) != executed:
		t.Errorf("%d distinct lookup answers, but lookup executed %d times", len(serials), executed)
	case st.Misses != uint64(executed) || st.Stores != st.Misses || st.Errors != 0:
		t.Errorf("cache stats %+v: want misses = stores = executions (%d), no errors", st, executed)
	case st.Hits != uint64(hits):
		t.Errorf("cache stats %+v: %d hits, but clients got %d cached answers", st, st.Hits, hits)
	case hits == 0:
		t.Errorf("no cache hit among %d lookups", allowedLookups)
	}

	// Audit: one event per call that reached the server (all of them, but the
	// 403s of challenge mode, which the HTTP middleware answers), none for
	// the visibility check a tools/call makes through tools:list-tools.
	flush(t, aud)
	if d := aud.Dropped(); d != 0 {
		t.Errorf("audit dropped %d events with a queue of %d", d, auditQueue)
	}
	evs := sink.events()
	if w := aud.Written(); w != uint64(len(evs)) {
		t.Errorf("audit Written() = %d, sink got %d", w, len(evs))
	}
	byFlow := map[string]int{}
	outcomes := map[string]int{}
	perSessionEvents := map[string]int{}
	requestIDs := map[string]bool{}
	initEvents := 0
	for _, ev := range evs {
		byFlow[ev.flow]++
		for _, u := range users {
			if strings.Contains(ev.all, u.token) {
				t.Errorf("audit event holds %s's token: %s", u.name, ev.all)
			}
		}
		if ev.flow == string(flows.SessionInitialize) {
			if _, ok := s.sessionUser.Load(ev.session); ok {
				initEvents++
			}
		}
		if ev.flow != string(flows.ToolsCallTool) {
			continue
		}
		if requestIDs[ev.request] {
			t.Errorf("two events for request %q", ev.request)
		}
		requestIDs[ev.request] = true
		perSessionEvents[ev.session]++
		if name, ok := s.sessionUser.Load(ev.session); !ok || name != ev.principal {
			t.Errorf("event of session %q has principal %q, the session's user is %v", ev.session, ev.principal, name)
		}
		switch {
		case ev.outcome == string(audit.OK) && ev.decidedBy == "":
			outcomes["ok"]++
		case ev.outcome == string(audit.AnsweredEarly) && strings.HasSuffix(ev.decidedBy, cacheHook) && ev.entity == "lookup":
			outcomes["cache"]++
		case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, authHook) && ev.err == scopeDenial && ev.entity == "deploy":
			outcomes["auth"]++
		case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, limitHook) && rateRefusal.MatchString(ev.err):
			outcomes["ratelimit"]++
		default:
			outcomes["other"]++
			if outcomes["other"] <= 5 {
				t.Errorf("unexpected audit event: %s", ev.all)
			}
		}
	}
	wantEvents := totalCalls
	wantAuth := deniedDeploys
	if challenge {
		wantEvents -= deniedDeploys // answered 403 by the HTTP middleware
		wantAuth = 0
	}
	wantOutcomes := map[string]int{
		"ok":        count[answered] - hits,
		"cache":     hits,
		"auth":      wantAuth,
		"ratelimit": count[limited],
	}
	for k, v := range wantOutcomes {
		if v == 0 {
			delete(wantOutcomes, k)
		}
	}
	if !mapsEqual(outcomes, wantOutcomes) {
		t.Errorf("audit outcomes %v, want %v (client saw %v)", outcomes, wantOutcomes, count)
	}
	// Over stateful HTTP the SDK client (v1.8.0) probes with server/discover
	// (its own throwaway session) before it initializes: session:initialize
	// runs for both. One initialize event per client session, and at most
	// one probe per connection.
	probes := byFlow[string(flows.SessionInitialize)] - initEvents
	if initEvents != len(all) || probes < 0 || probes > len(all) {
		t.Errorf("session:initialize: %d events on the clients' sessions, %d others; want %d and at most %d probes", initEvents, probes, len(all), len(all))
	}
	delete(byFlow, string(flows.SessionInitialize))
	wantFlows := map[string]int{
		string(flows.ToolsCallTool):  wantEvents,
		string(flows.ToolsListTools): int(s.listCalls.Load()), // the clients' lists, not the 1,000 visibility checks
	}
	if !mapsEqual(byFlow, wantFlows) {
		t.Errorf("audit events per flow %v, want %v (and session:initialize)", byFlow, wantFlows)
	}
	for _, se := range all {
		want := perSession
		if challenge && !se.u.deploy {
			want -= nDeploy
		}
		if n := perSessionEvents[se.cs.ID()]; n != want {
			t.Errorf("session of %s: %d tools/call events, want %d", se.u.name, n, want)
		}
	}
	t.Logf("client: %v; allowed lookups %d (cache hits %d); audit outcomes %v", count, allowedLookups, hits, outcomes)
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Audit sinks that hang or fail

// TestAuditSinkFailingDoesNotBlock attaches two audit plugins next to auth,
// ratelimit and cache: one whose sink blocks forever (until the test
// releases it) behind a queue of 8, one whose sink fails every write (an
// error, or a panic). 200 concurrent calls are all answered, within a
// generous deadline, and every lost event is counted.
func TestAuditSinkFailingDoesNotBlock(t *testing.T) {
	const sessions, perSess, queue = 4, 50, 8
	const calls = sessions * perSess
	stuck := &stuckSink{release: make(chan struct{})}
	failing := &failingSink{}
	s := newStack(t, stackConfig{
		ratelimit: ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: nearZero, Burst: 10 * calls}},
		audits: []audit.Config{
			{Name: "audit-stuck", Handler: stuck, QueueSize: queue, Flows: []flows.ID{flows.ToolsCallTool}},
			{Name: "audit-failing", Handler: failing, Flows: []flows.ID{flows.ToolsCallTool}},
		},
	})
	// Runs before the plugins' Close (cleanups run last-registered first):
	// Close drains the queue, which needs the sink to return.
	t.Cleanup(stuck.unblock)
	stuckAudit, failingAudit := s.audits[0], s.audits[1]

	var css []*mcp.ClientSession
	for i := range sessions {
		css = append(css, s.connect(t, users[i%3])) // ann, bob, eve: every call allowed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var bad atomic.Int64
	for i, cs := range css {
		for j := range perSess {
			wg.Go(func() {
				var p mcp.CallToolParams
				switch j % 3 {
				case 0:
					p = mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"key": j % lookupKeys}}
				case 1:
					p = mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"target": "x"}}
				default:
					p = mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "y"}}
				}
				res, err := cs.CallTool(ctx, &p)
				if k, text := classify(res, err, false); k != answered {
					if bad.Add(1) <= 5 {
						t.Errorf("session %d: %s: %s %s", i, p.Name, k, text)
					}
				}
			})
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("calls not answered within the deadline: a sink blocked them")
	}

	// Every call has returned, so every run's finally has queued (or
	// dropped) its event. The stuck plugin's writer holds at most one event
	// in its sink, its queue at most 8: the rest were dropped.
	if entered := stuck.entered.Load(); entered > 1 {
		t.Errorf("stuck sink entered %d times, want at most 1 (it never returns)", entered)
	}
	if d := stuckAudit.Dropped(); d < calls-queue-1 || d > calls-queue {
		t.Errorf("stuck sink: Dropped() = %d, want %d or %d", d, calls-queue-1, calls-queue)
	}
	if w := stuckAudit.Written(); w != 0 {
		t.Errorf("stuck sink: Written() = %d before it was released", w)
	}
	flush(t, failingAudit)
	if d, w, n := failingAudit.Dropped(), failingAudit.Written(), failing.n.Load(); d != calls || w != 0 || n != calls {
		t.Errorf("failing sink: Dropped() = %d, Written() = %d, sink called %d times; want %d, 0, %d", d, w, n, calls, calls)
	}

	// Released, the stuck sink writes what its queue held; nothing is lost
	// unaccounted.
	stuck.unblock()
	flush(t, stuckAudit)
	d, w := stuckAudit.Dropped(), stuckAudit.Written()
	if d+w != calls || w != uint64(len(stuck.events())) {
		t.Errorf("stuck sink after release: Dropped() %d + Written() %d != %d calls (sink got %d)", d, w, calls, len(stuck.events()))
	}
}

// ---------------------------------------------------------------------------
// Redis unreachable

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
	}{{"refused", refusingAddr}, {"silent", silentAddr}} {
		for _, policy := range []ratelimit.Policy{ratelimit.FailClosed, ratelimit.FailOpen} {
			t.Run(addr.name+"/"+policy.String(), func(t *testing.T) {
				client := redis.NewClient(ratelimit.RedisClientOptions(addr.get(t), time.Minute))
				t.Cleanup(func() { _ = client.Close() })
				sink := &recorder{}
				cfg := ratelimit.Config{
					PerPrincipal: ratelimit.Limit{Rate: 1, Burst: 1000},
					Backend:      ratelimit.NewRedis(client, nil),
				}
				if policy == ratelimit.FailOpen {
					cfg.OnBackendError = ratelimit.FailOpen // the zero value is FailClosed
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
							if want := map[ratelimit.Policy]kind{ratelimit.FailClosed: unavail, ratelimit.FailOpen: answered}[policy]; k != want && n <= 3 {
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
				if policy == ratelimit.FailOpen {
					want = map[string]int{"auth": 1, "allowed": calls}
				}
				if !mapsEqual(outcomes, want) {
					t.Errorf("audit outcomes %v, want %v", outcomes, want)
				}
			})
		}
	}
}
