package plugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

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
		case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, authHook) && !challenge && ev.err == scopeDenial && ev.entity == "deploy":
			outcomes["auth"]++
		case ev.outcome == string(audit.Blocked) && strings.HasSuffix(ev.decidedBy, authHTTP) && challenge && ev.err == scopeDenial && ev.entity == "deploy":
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
	// Calls refused with HTTP 403 by the auth middleware are audited too
	// (through auth.Config.Audit), decided by its scope challenge.
	wantEvents := totalCalls
	wantAuth := deniedDeploys
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
		// Each client session's notifications/initialized.
		string(flows.NotificationsFromClient): len(all),
	}
	if !mapsEqual(byFlow, wantFlows) {
		t.Errorf("audit events per flow %v, want %v (and session:initialize)", byFlow, wantFlows)
	}
	for _, se := range all {
		want := perSession
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
