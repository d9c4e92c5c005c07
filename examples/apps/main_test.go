package main

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Hook IDs: <owner>/<flow>/<stage>/<name>.
const (
	count = "shop/tools:call-tool/beforeValidation/count"

	auditStart    = "shop/app:billing/plugin:audit/tools:call-tool/beforeValidation/start"
	auditAnswered = "shop/app:billing/plugin:audit/tools:call-tool/afterExecute/answered"
	auditFailed   = "shop/app:billing/plugin:audit/tools:call-tool/onError/failed"
	auditEvent    = "shop/app:billing/plugin:audit/tools:call-tool/finally/event"
	checkAmount   = "github.com/hookflow/hookflow/examples/apps/billing.Refund/tools:call-tool/beforeExecute/CheckAmount"

	cacheLookup = "shop/app:catalog/plugin:cache/tools:call-tool/beforeExecute/lookup"
	cacheStore  = "shop/app:catalog/plugin:cache/tools:call-tool/afterExecute/store"
)

func runTestDemo(t *testing.T) *demoResult {
	t.Helper()
	res, err := demo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Calls) != len(demoCalls) {
		t.Fatalf("%d calls reported, want %d", len(res.Calls), len(demoCalls))
	}
	return res
}

// TestOwnerFiltering checks, call by call, exactly which hooks ran: the
// server's counter for every call, the audit plugin's hooks for billing's
// tools only, the cache plugin's for catalog's only.
func TestOwnerFiltering(t *testing.T) {
	res := runTestDemo(t)
	want := [][]string{
		{auditStart, count, auditAnswered, auditEvent},              // invoice_total
		{auditStart, count, checkAmount, auditAnswered, auditEvent}, // refund
		{auditStart, count, auditAnswered, auditEvent},              // invoice_total again: no cache here
		{auditStart, count, checkAmount, auditFailed, auditEvent},   // refund blocked
		{count, cacheLookup, cacheStore},                            // search
		{count, cacheLookup, cacheStore},                            // search again (lookup responds)
		{count, cacheLookup, cacheStore},                            // price
	}
	for i, r := range res.Calls {
		if got := r.Hooks(); !slices.Equal(got, want[i]) {
			t.Errorf("call %d (%s %s): hooks\n  %s\nwant\n  %s", i+1, r.App, r.Tool, strings.Join(got, "\n  "), strings.Join(want[i], "\n  "))
		}
		counts, _ := r.Owners()
		if counts["shop"] != 1 {
			t.Errorf("call %d (%s %s): the server hook ran %d times, want 1", i+1, r.App, r.Tool, counts["shop"])
		}
		for _, id := range r.Hooks() {
			other := map[string]string{"billing": "/app:catalog/", "catalog": "/app:billing/"}[r.App]
			if strings.Contains(id, other) {
				t.Errorf("call %d (%s %s): hook %s of the other app ran", i+1, r.App, r.Tool, id)
			}
		}
	}
}

// TestAuditOnlyBilling checks that the audit plugin, attached to the
// billing app, wrote one event for each billing call and none for catalog
// calls, with the right outcome.
func TestAuditOnlyBilling(t *testing.T) {
	res := runTestDemo(t)
	wantOutcome := []string{"ok", "ok", "ok", "blocked", "", "", ""}
	for i, r := range res.Calls {
		switch r.App {
		case "billing":
			if len(r.Audit) != 1 {
				t.Fatalf("call %d (%s): %d audit events, want 1: %v", i+1, r.Tool, len(r.Audit), r.Audit)
			}
			a := r.Audit[0]
			if a["flow"] != "tools:call-tool" || a["entity"] != r.Tool || a["outcome"] != wantOutcome[i] {
				t.Errorf("call %d (%s): audit event %v, want entity %s outcome %s", i+1, r.Tool, a, r.Tool, wantOutcome[i])
			}
			if a["request_id"] == "" {
				t.Errorf("call %d (%s): audit event without request_id: %v", i+1, r.Tool, a)
			}
		case "catalog":
			if len(r.Audit) != 0 {
				t.Errorf("call %d (%s): catalog call audited: %v", i+1, r.Tool, r.Audit)
			}
		}
	}
	blocked := res.Calls[3]
	if got := blocked.Audit[0]["decided_by"]; got != checkAmount {
		t.Errorf("blocked refund: decided_by %q, want %q", got, checkAmount)
	}
	if !blocked.IsError || !strings.Contains(blocked.Result, "need a human") {
		t.Errorf("blocked refund: isError %v, result %q", blocked.IsError, blocked.Result)
	}
	if res.AuditWritten != 4 || res.AuditDropped != 0 {
		t.Errorf("audit: %d written, %d dropped; want 4, 0", res.AuditWritten, res.AuditDropped)
	}
}

// TestCacheOnlyCatalog checks that the second search is answered early by
// the cache (execute skipped, same result), that billing's read-only
// invoice_total executes every time, and the cache's counters.
func TestCacheOnlyCatalog(t *testing.T) {
	res := runTestDemo(t)
	first, second, price := res.Calls[4], res.Calls[5], res.Calls[6]
	if !first.Executed() || second.Executed() || !price.Executed() {
		t.Errorf("executed: search %v, search again %v, price %v; want true, false, true", first.Executed(), second.Executed(), price.Executed())
	}
	lookup := func(r *callReport) string {
		for _, e := range r.Trace {
			if e.Hook == cacheLookup {
				return e.Outcome
			}
		}
		return "(did not run)"
	}
	if got := lookup(first); got != "ok" {
		t.Errorf("first search: lookup %s, want ok", got)
	}
	if got := lookup(second); got != "respond" {
		t.Errorf("second search: lookup %s, want respond (answered early)", got)
	}
	if got := lookup(price); got != "ok" {
		t.Errorf("price: lookup %s, want ok (not cacheable)", got)
	}
	if second.Result != first.Result || !strings.Contains(first.Result, "Travel mug") {
		t.Errorf("search results: %q then %q", first.Result, second.Result)
	}

	// invoice_total is read-only too, but billing has no cache: the second
	// call executes and sees the refund made in between.
	if !res.Calls[0].Executed() || !res.Calls[2].Executed() {
		t.Error("invoice_total did not execute both times")
	}
	if !strings.Contains(res.Calls[0].Result, `"due_cents":12000`) || !strings.Contains(res.Calls[2].Result, `"due_cents":9500`) {
		t.Errorf("invoice_total: %q then %q", res.Calls[0].Result, res.Calls[2].Result)
	}
	if res.CacheHits != 1 || res.CacheMisses != 1 || res.CacheStores != 1 {
		t.Errorf("cache: %d hits, %d misses, %d stores; want 1, 1, 1", res.CacheHits, res.CacheMisses, res.CacheStores)
	}
	if res.CallsCounted != int64(len(demoCalls)) {
		t.Errorf("server counter: %d, want %d", res.CallsCounted, len(demoCalls))
	}
}

// TestDemoOutput checks the printed demo tells the same story.
func TestDemoOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := runDemo(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	blocks := strings.Split(out, "\n== ")
	if len(blocks) != len(demoCalls)+2 { // header, calls, totals
		t.Fatalf("%d blocks:\n%s", len(blocks), out)
	}
	for i, b := range blocks[1 : len(blocks)-1] {
		billing := demoCalls[i].App == "billing"
		if strings.Contains(b, "plugin:audit") != billing || strings.Contains(b, "plugin:cache") == billing {
			t.Errorf("call %d block shows the wrong plugin:\n%s", i+1, b)
		}
		if strings.Contains(b, "audit: flow=tools:call-tool entity="+demoCalls[i].Tool) != billing {
			t.Errorf("call %d block: audit event shown %v, want %v:\n%s", i+1, !billing, billing, b)
		}
		if !strings.Contains(b, "shop                           count") {
			t.Errorf("call %d block: no server hook:\n%s", i+1, b)
		}
	}
	for _, s := range []string{
		"respond  beforeExecute     shop/app:catalog/plugin:cache  lookup",
		"outcome=blocked decided_by=" + checkAmount,
		"7 tool calls, both apps",
		"4 events written, 0 dropped",
		"1 hit, 1 miss, 1 stored",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("demo output lacks %q:\n%s", s, out)
		}
	}
}

// TestHTTP serves the shop over streamable HTTP, as -http does, and checks
// the owner filtering from a real HTTP client under concurrent sessions:
// every call counted, one audit event per billing call, catalog searches
// answered from the cache after the first.
func TestHTTP(t *testing.T) {
	events := &auditLog{}
	s, err := newShop(shopOptions{AuditHandler: events})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Audit.Close(context.Background()) })
	h, err := s.Server.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the sessions' cleanups, which run first

	ctx := t.Context()
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	cs := connect()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"invoice_total", "price", "refund", "search"}) {
		t.Errorf("tools/list: %v", names)
	}

	const sessions, perSession = 4, 10
	call := func(cs *mcp.ClientSession, name string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if res.IsError {
			t.Errorf("%s: isError %s", name, text(res.Content))
		}
	}
	// Warm the cache first so that the concurrent searches all hit.
	call(cs, "search", map[string]any{"query": "shirt"})
	var wg sync.WaitGroup
	for range sessions {
		cs := connect()
		wg.Go(func() {
			for j := range perSession {
				if j%2 == 0 {
					call(cs, "invoice_total", map[string]any{"invoice": "INV-1002"})
				} else {
					call(cs, "search", map[string]any{"query": "shirt"})
				}
			}
		})
	}
	wg.Wait()

	if err := s.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	total := 1 + sessions*perSession
	billingCalls := sessions * perSession / 2
	if got := s.Calls.Load(); got != int64(total) {
		t.Errorf("server counter: %d, want %d", got, total)
	}
	recs := events.take()
	if len(recs) != billingCalls {
		t.Errorf("%d audit events, want %d (billing calls only)", len(recs), billingCalls)
	}
	for _, r := range recs {
		if r["entity"] != "invoice_total" {
			t.Errorf("audit event for %s: %v", r["entity"], r)
		}
	}
	if st := s.Cache.Stats(); st.Misses != 1 || st.Hits != uint64(total-1-billingCalls) {
		t.Errorf("cache: %+v, want 1 miss, %d hits", st, total-1-billingCalls)
	}
}

// TestUnknownTool checks that a name no app has is a protocol error, not
// an isError result, and runs no app's hooks.
func TestUnknownTool(t *testing.T) {
	var mu sync.Mutex
	var hooks []string
	s, err := newShop(shopOptions{Observer: func(ev *flows.Event) {
		mu.Lock()
		hooks = append(hooks, ev.Hook)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Audit.Close(context.Background())
	cs := connectInMemory(t, s)
	mu.Lock()
	hooks = nil
	mu.Unlock()
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: %v, want a protocol error %d", err, jsonrpc.CodeInvalidParams)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range hooks {
		if h != "" {
			t.Errorf("hook %s ran for an unknown tool", h)
		}
	}
	if n := s.Calls.Load(); n != 0 {
		t.Errorf("server counter: %d, want 0", n)
	}
}

// TestToolErrors checks the tools' failures reach the client as isError
// results, and that the billing ones are audited: "error" for a tool that
// failed, "blocked" for one its own hook stopped.
func TestToolErrors(t *testing.T) {
	events := &auditLog{}
	s, err := newShop(shopOptions{AuditHandler: events})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Audit.Close(context.Background())
	cs := connectInMemory(t, s)
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		reason  string
		outcome string // audit outcome; "" for catalog (not audited)
	}{
		{"invoice_total", map[string]any{"invoice": "INV-9"}, `no invoice "INV-9"`, "error"},
		{"refund", map[string]any{"invoice": "INV-9", "amount_cents": 1}, `no invoice "INV-9"`, "error"},
		{"refund", map[string]any{"invoice": "INV-1002", "amount_cents": 5000}, "exceeds the 4999 cents still due", "error"},
		{"refund", map[string]any{"invoice": "INV-1002", "amount_cents": 0}, "must be positive", "blocked"},
		{"refund", map[string]any{"invoice": "INV-1002", "amount_cents": "ten"}, `validating "arguments"`, "error"},
		{"price", map[string]any{"sku": "HAT-1"}, `no product "HAT-1"; known: MUG-1, MUG-2, TEE-1`, ""},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, tc.args, err)
		}
		if !res.IsError || !strings.Contains(text(res.Content), tc.reason) {
			t.Errorf("%s %v: isError %v %q, want %q", tc.tool, tc.args, res.IsError, text(res.Content), tc.reason)
		}
		if err := s.Audit.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		recs := events.take()
		switch {
		case tc.outcome == "" && len(recs) != 0:
			t.Errorf("%s %v: audited %v", tc.tool, tc.args, recs)
		case tc.outcome != "" && (len(recs) != 1 || recs[0]["outcome"] != tc.outcome):
			t.Errorf("%s %v: audit %v, want one event with outcome %s", tc.tool, tc.args, recs, tc.outcome)
		}
	}
}

// TestServeHTTPStops checks that -http shuts down cleanly when its context
// is done (as on Ctrl-C).
func TestServeHTTPStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, "127.0.0.1:0") }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func connectInMemory(t *testing.T, s *shop) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Server.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
