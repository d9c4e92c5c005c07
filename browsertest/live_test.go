package browsertest_test

import (
	"context"
	"os"
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

// gapsJS counts, down the live list (newest first), the places where a
// run's number does not follow the next row's and no marker row says
// how many runs are missing there: the silent gaps.
const gapsJS = `(() => {
	let prev = null, gaps = 0;
	for (const r of document.querySelectorAll("#runs tbody tr")) {
		if (r.classList.contains("dropped")) { prev = null; continue; }
		const s = Number(r.dataset.seq);
		if (prev !== null && s !== prev - 1) { gaps++; }
		prev = s;
	}
	return gaps;
})()`

// TestLiveListUnderLoad opens the runs list while calls come at
// HOOKFLOW_LIVE_RATE a second (400) for HOOKFLOW_LIVE_SECONDS (60),
// pauses and resumes it once (a reconnection after the last run it
// received), and checks that the list has no silent gap: every run
// between its first row and its newest is there, or a row counts the
// missing ones.
func TestLiveListUnderLoad(t *testing.T) {
	rate, seconds := envInt("HOOKFLOW_LIVE_RATE", 400), envInt("HOOKFLOW_LIVE_SECONDS", 60)
	ctx := browser(t)
	q := startQuickstart(t)
	if err := authorized(ctx); err != nil {
		t.Fatal(err)
	}
	total := time.Duration(seconds) * time.Second
	ld := startLoad(t, q, rate, total)
	load := ld.end
	time.Sleep(total / 4) // opened mid-traffic
	if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+"/")); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "live"`, 30*time.Second)
	time.Sleep(total / 4)
	// Reconnected once: paused for a second, resumed after the last run.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#live-toggle"))); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "paused"`, 10*time.Second)
	time.Sleep(time.Second)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#live-toggle"))); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "live"`, 30*time.Second)
	// Until the load ends, and once after, the list has no silent gap;
	// the second's pause outlasted the replay of 200 runs at this rate,
	// so the list must count the missed ones.
	var markers []string
	check := func() {
		gaps, err := chromedp.Run(ctx, chromedp.Evaluate[int](gapsJS))
		if err != nil {
			t.Fatal(err)
		}
		if gaps != 0 {
			t.Fatalf("%d silent gaps in the live list:\n%s", gaps, html(t, ctx))
		}
		m, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs tbody tr.dropped")].map(r => r.innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		markers = append(markers, m...)
	}
	for loading := true; loading; {
		select {
		case <-load:
			loading = false
		case <-time.After(200 * time.Millisecond):
			check()
		}
	}
	ld.wg.Wait()
	time.Sleep(2 * time.Second) // the last runs reach the page
	check()
	t.Logf("%d calls in %v (%d not sent: the machine was behind)", ld.done.Load(), total, ld.skipped.Load())
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#runs tbody tr.run").length`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs listed at the end; markers seen: %q", rows, slices.Compact(markers))
	missed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("runs").dataset.missed || ""`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("missed, by the list's count: %q; status: %s", missed, text(t, ctx, "#live-status"))
	if rate >= 400 && missed == "" {
		t.Error("a second's pause at this rate missed more runs than a replay sends, and no row said so")
	}
	if rows == 0 {
		t.Error("the list shows no run")
	}
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
