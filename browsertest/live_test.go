package browsertest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envInt returns the environment variable name as an int, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// TestLiveListUnderLoad opens the runs list while calls come at
// HOOKFLOW_LIVE_RATE a second (400) for HOOKFLOW_LIVE_SECONDS (60), the
// quickstart writing its audit file, and checks the list against that
// file. The page is opened a quarter in; half-way, a proxy between the
// browser and the console drops the stream for real (both connections
// closed, new ones refused for a second), and the page must show that it
// is reconnecting, resume by itself with Last-Event-ID and be live again.
// At the end every run of the audit file since the page was drawn is
// listed, or counted by a marker whose counts add up exactly.
func TestLiveListUnderLoad(t *testing.T) {
	rate, seconds := envInt("HOOKFLOW_LIVE_RATE", 400), envInt("HOOKFLOW_LIVE_SECONDS", 60)
	ctx := browser(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	q := startQuickstart(t, "-audit", auditPath)
	px := startProxy(t, q.consoleURL)
	if err := errors.Join(authorized(ctx), collect(ctx)); err != nil {
		t.Fatal(err)
	}
	total := time.Duration(seconds) * time.Second
	ld := startLoad(t, q, rate, total)
	time.Sleep(total / 4) // opened mid-traffic
	if err := chromedp.Do(ctx, chromedp.Navigate(px.url()+"/")); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "live"`, 30*time.Second)
	var s seen
	follow(t, ctx, &s, time.Now().Add(total/4), nil)
	before := len(s.states)
	px.drop(t, time.Second)
	back := func() bool { return reconnected(s.states[before:]) }
	if follow(t, ctx, &s, time.Now().Add(30*time.Second), back); !back() {
		t.Fatalf("after the drop the list did not show reconnecting and then live: %q", s.states[before:])
	}
	follow(t, ctx, &s, time.Now().Add(2*total), ld.end)
	ld.wg.Wait()
	follow(t, ctx, &s, time.Now().Add(30*time.Second), quiet(&s, 3*time.Second)) // the last runs reach the page and the audit file
	t.Logf("%d calls in %v (%d not sent: the machine was behind); states: %q", ld.done.Load(), total, ld.skipped.Load(), slices.Compact(s.states))
	checkResumed(t, px.streams(), &s)
	missed, errs := s.checkGaps()
	audit, err := readAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	report, aerrs := checkAudit(&s, audit, missed)
	t.Log(report)
	for _, err := range append(errs, aerrs...) {
		t.Error(err)
	}
	if rate >= 400 && missed == 0 {
		t.Error("a drop of the stream at this rate outlasted a replay's 200 runs, and no marker counted the rest")
	}
}

// follow drains the page's notes every 250 ms until deadline, or until
// done is closed, or (a func) returns true.
func follow(t *testing.T, ctx context.Context, s *seen, deadline time.Time, done any) {
	t.Helper()
	for time.Now().Before(deadline) {
		if err := s.drain(ctx); err != nil {
			t.Fatal(err)
		}
		switch d := done.(type) {
		case chan struct{}:
			select {
			case <-d:
				return
			default:
			}
		case func() bool:
			if d() {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// quiet returns a func that is true once s has got no row for d.
func quiet(s *seen, d time.Duration) func() bool {
	n, since := -1, time.Now()
	return func() bool {
		if got := len(s.initial) + len(s.live); got != n {
			n, since = got, time.Now()
		}
		return time.Since(since) >= d
	}
}

// reconnected reports whether states, since a drop, show reconnecting
// and then live, and never disconnected (the stream given up).
func reconnected(states []string) bool {
	i := slices.Index(states, "reconnecting")
	return i >= 0 && slices.Contains(states[i:], "live") && !slices.Contains(states, "disconnected")
}

// checkResumed checks that the page's first stream started after the run
// it was drawn with, and that a later one resumed by Last-Event-ID, as
// the browser reconnects, after a run the page had listed.
func checkResumed(t *testing.T, opens []streamOpen, s *seen) {
	t.Helper()
	if len(opens) < 2 {
		t.Fatalf("the stream was opened %d times, want a reconnection: %+v", len(opens), opens)
	}
	if opens[0].after == "" {
		t.Errorf("the first stream named no run to start after: %+v", opens[0])
	}
	ids := map[string]bool{}
	for _, it := range s.list() {
		ids[it.ID] = true
	}
	for _, o := range opens[1:] {
		if o.lastEventID != "" && ids[o.lastEventID] {
			return
		}
	}
	t.Errorf("no reconnection resumed by Last-Event-ID after a listed run: %+v", opens)
}

// load is calls of get_weather at a steady rate, on 16 sessions.
type load struct {
	end           chan struct{} // closed when no more calls are sent
	wg            sync.WaitGroup
	done, skipped atomic.Int64
}

// startLoad calls get_weather rate times a second for total; a call the
// 16 sessions cannot take at once is skipped and counted.
func startLoad(t *testing.T, q *quickstart, rate int, total time.Duration) *load {
	const workers = 16
	ld := &load{end: make(chan struct{})}
	jobs := make(chan struct{}, workers)
	for range workers {
		cs := q.session(t)
		ld.wg.Add(1)
		go func() {
			defer ld.wg.Done()
			for range jobs {
				// t.Errorf, not call's Fatalf: this is not the test's goroutine.
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}); err != nil {
					t.Errorf("get_weather: %v", err)
				}
				ld.done.Add(1)
			}
		}()
	}
	go func() {
		defer close(ld.end)
		defer close(jobs)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		start, sent := time.Now(), int64(0)
		for now := start; now.Sub(start) < total; now = <-tick.C {
			// As many calls as are due by now: a late tick sends more.
			for due := int64(now.Sub(start).Seconds() * float64(rate)); sent < due; sent++ {
				select {
				case jobs <- struct{}{}:
				default:
					ld.skipped.Add(1) // the server or this machine is behind
				}
			}
		}
	}()
	return ld
}
