package plugins_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

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
