package browsertest_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hookflow/hookflow/plugins/console"
)

// The quickstart's hooks of tools:call-tool on get_weather, in the order
// a call runs them (its plugins: the console, audit, auth).
var weatherPlan = []string{
	"quickstart/plugin:console/tools:call-tool/beforeValidation/start",
	"quickstart/plugin:audit/tools:call-tool/beforeValidation/start",
	"quickstart/plugin:auth/tools:call-tool/beforeValidation/scopes",
	"main.GetWeather/tools:call-tool/beforeValidation/Normalize",
	"main.GetWeather/tools:call-tool/beforeExecute/RejectMoon",
	"main.GetWeather/tools:call-tool/beforeExecute/AnswerFromCache",
	"quickstart/plugin:audit/tools:call-tool/afterExecute/answered",
	"quickstart/plugin:audit/tools:call-tool/onError/failed",
	"quickstart/plugin:audit/tools:call-tool/finally/event",
	"quickstart/plugin:console/tools:call-tool/finally/feed",
}

const (
	rejectMoon = "main.GetWeather/tools:call-tool/beforeExecute/RejectMoon"
	moonReason = "the moon has no weather: pick a city on Earth"
	// forecast is the description of a set_forecast call: the quickstart's
	// console redacts the field description.
	forecast = "forecast-value-the-console-must-redact"
)

// authorized makes every request of the browser carry the console's
// token, as the password of basic authentication.
func authorized(ctx context.Context) error {
	creds := base64.StdEncoding.EncodeToString([]byte("operator:" + consoleToken))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Basic " + creds}})
	return err
}

// screenshot writes the page to dir/name.png.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitTrue evaluates expr every 25 ms until it is true, for at most
// within; it returns how long that took.
func waitTrue(t *testing.T, ctx context.Context, expr string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > within {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
			t.Fatalf("not true within %v: %s\n%s", within, expr, html)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// html returns the page's HTML.
func html(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// text returns the text of the element sel selects.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// noSecret fails t when s holds a token or the redacted value.
func noSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, secret := range []string{mcpToken, consoleToken, forecast} {
		if strings.Contains(s, secret) {
			t.Errorf("%s shows %q", where, secret)
		}
	}
}

// stream reads the console's live stream with the token until ctx ends.
func stream(t *testing.T, ctx context.Context, url string) *syncBuffer {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+consoleToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream: %s", resp.Status)
	}
	got := &syncBuffer{}
	rd := bufio.NewReader(resp.Body)
	if _, err := rd.ReadString('\n'); err != nil { // subscribed
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer resp.Body.Close()
		for {
			ln, err := rd.ReadString('\n')
			got.Write([]byte(ln))
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(wg.Wait)
	return got
}

// TestConsole drives the quickstart's console in chromium: the live list,
// a blocked call's timeline, the plan, the credential, and no secret in
// any page or the stream. Each page's screenshot is an artifact.
func TestConsole(t *testing.T) {
	ctx := browser(t)
	q := startQuickstart(t)
	dir := artifacts(t)
	cs := q.session(t)
	streamCtx, stopStream := context.WithCancel(context.Background())
	defer stopStream()
	events := stream(t, streamCtx, q.consoleURL+"/events")

	t.Run("401 without the credential", func(t *testing.T) {
		bctx, cancel := chromedp.NewContext(ctx) // a tab without the token
		defer cancel()
		if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		// Headless chromium has nobody to ask for the basic credential:
		// it ends the navigation (net::ERR_INVALID_AUTH_CREDENTIALS) once
		// the 401 has come, which the network events show.
		responses := chromedp.Events(bctx, network.ResponseReceived)
		err := chromedp.Do(bctx, chromedp.Navigate(q.consoleURL+"/"))
		if err != nil && !strings.Contains(err.Error(), "ERR_INVALID_AUTH_CREDENTIALS") {
			t.Fatal(err)
		}
		status := int64(0)
		for ev, err := range responses {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Response != nil && ev.Response.URL == q.consoleURL+"/" {
				status = ev.Response.Status
				break
			}
		}
		if status != http.StatusUnauthorized {
			t.Errorf("the browser got %d, want 401", status)
		}
		for _, path := range []string{"/events", "/plan", "/static/" + console.Version + "/console.js"} {
			resp, err := http.Get(q.consoleURL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("GET %s without the token: %s", path, resp.Status)
			}
		}
	})

	if err := authorized(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("the live list shows a call", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+"/")); err != nil {
			t.Fatal(err)
		}
		waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "live"`, 30*time.Second)
		call(t, cs, "get_weather", map[string]any{"city": "Paris"})
		took := waitTrue(t, ctx, `[...document.querySelectorAll("#runs tbody tr.run")].some(r => r.innerText.includes("get_weather"))`, 10*time.Second)
		t.Logf("the call appeared in the list %v after it returned", took)
		screenshot(t, ctx, dir, "runs")
	})

	var waterfall []string
	t.Run("a blocked call's timeline", func(t *testing.T) {
		if got := call(t, cs, "get_weather", map[string]any{"city": "Moon"}); got != moonReason {
			t.Fatalf("the client read %q", got)
		}
		waitTrue(t, ctx, `document.querySelector("#runs tbody tr.o-blocked a") !== null`, 10*time.Second)
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`#runs tbody tr.o-blocked a`)),
			chromedp.WaitVisible(chromedp.CSS(`#decided-by`)),
		); err != nil {
			t.Fatal(err)
		}
		by := text(t, ctx, "#decided-by")
		reason := text(t, ctx, "#reason")
		outcome := text(t, ctx, "#outcome")
		var err error
		waterfall, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#waterfall td.hook")].map(td => td.firstChild.textContent.trim())`))
		if err != nil {
			t.Fatal(err)
		}
		if outcome != "blocked" || by != rejectMoon || reason != moonReason {
			t.Errorf("outcome %q, decided by %q, reason %q", outcome, by, reason)
		}
		if !slices.Contains(waterfall, rejectMoon) {
			t.Errorf("the timeline does not show %s: %q", rejectMoon, waterfall)
		}
		if why := text(t, ctx, "#waterfall tr.s-blocked .why"); why != moonReason {
			t.Errorf("the blocked row's reason %q", why)
		}
		screenshot(t, ctx, dir, "run-blocked")
	})

	t.Run("the plan lists hooks in run order", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+"/plan?flow=tools:call-tool&entity=get_weather")); err != nil {
			t.Fatal(err)
		}
		hooks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("ol.plan .hook")].map(e => e.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hooks, weatherPlan) {
			t.Errorf("plan:\n got %q\nwant %q", hooks, weatherPlan)
		}
		// The blocked run's timeline ran a prefix of the plan, in order.
		var ran []string
		for _, h := range waterfall {
			if !strings.HasPrefix(h, "step: ") {
				ran = append(ran, h)
			}
		}
		at := 0
		for _, h := range ran {
			i := slices.Index(weatherPlan[at:], h)
			if i < 0 {
				t.Errorf("the timeline %q is not in the plan's order %q", ran, weatherPlan)
				break
			}
			at += i + 1
		}
		screenshot(t, ctx, dir, "plan")
	})

	t.Run("no secret in a page or the stream", func(t *testing.T) {
		call(t, cs, "set_forecast", map[string]any{"city": "Paris", "description": forecast})
		if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+"/?tool=set_forecast")); err != nil {
			t.Fatal(err)
		}
		waitTrue(t, ctx, `document.querySelector("#runs tbody tr.run a") !== null`, 10*time.Second)
		noSecret(t, "the runs page", html(t, ctx))
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`#runs tbody tr.run a`)),
			chromedp.WaitVisible(chromedp.CSS(`#args`)),
		); err != nil {
			t.Fatal(err)
		}
		args := text(t, ctx, "#args")
		if !strings.Contains(args, `"description":"[REDACTED]"`) {
			t.Errorf("arguments %s", args)
		}
		noSecret(t, "the run page", html(t, ctx))
		for _, page := range []string{"/rates", "/upstreams", "/plan?flow=tools:call-tool&entity=set_forecast"} {
			if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+page)); err != nil {
				t.Fatal(err)
			}
			noSecret(t, page, html(t, ctx))
			screenshot(t, ctx, dir, strings.Trim(strings.SplitN(page, "?", 2)[0], "/"))
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(events.String(), "set_forecast") && time.Now().Before(deadline) {
			time.Sleep(25 * time.Millisecond)
		}
		stopStream()
		got := events.String()
		if !strings.Contains(got, "set_forecast") || !strings.Contains(got, "get_weather") {
			t.Errorf("the stream did not carry the calls:\n%s", got)
		}
		noSecret(t, "the event stream", got)
	})
	t.Logf("screenshots in %s", dir)
}
