package browsertest_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axeAllowed lists the axe-core rules whose violations the console
// accepts, each with its reason. It is empty: every page passes every
// rule axe runs by default.
var axeAllowed = map[string]string{}

// violation is what the test reports of one axe-core violation.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeResult is what the test reads of axe.run's result.
type axeResult struct {
	Passes     int         `json:"passes"`
	Violations []violation `json:"violations"`
}

// TestAccessibility injects axe-core (HOOKFLOW_AXE, pinned by
// .ci/axe-core.sh) into each page of the console and runs it: no
// violation beyond axeAllowed.
func TestAccessibility(t *testing.T) {
	path := os.Getenv("HOOKFLOW_AXE")
	if path == "" {
		skip(t, "HOOKFLOW_AXE is not set: run .ci/axe-core.sh and eval its output")
	}
	axe, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	q := startQuickstart(t)
	cs := q.session(t)
	call(t, cs, "get_weather", map[string]any{"city": "Paris"})
	call(t, cs, "get_weather", map[string]any{"city": "Moon"})
	call(t, cs, "get_weather", map[string]any{"city": "Paris"}) // answered early
	if err := authorized(ctx); err != nil {
		t.Fatal(err)
	}
	// The console's policy allows its own script only; the test's
	// injected one comes through the DevTools protocol.
	if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+"/")); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.querySelectorAll("#runs tbody tr.run").length >= 3`, 10*time.Second)
	runLink, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#runs tbody tr.o-blocked a").getAttribute("href")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{
		"/", "/?outcome=blocked", strings.TrimPrefix(runLink, "/console"),
		"/plan?flow=tools:call-tool&entity=get_weather", "/plan?flow=tools:call-tool",
		"/rates", "/upstreams",
	} {
		t.Run(page, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(q.consoleURL+page)); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(axe)+"\n;true")); err != nil {
				t.Fatalf("injecting axe-core: %v", err)
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[axeResult](`axe.run(document).then(r => ({
				passes: r.passes.length,
				violations: r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => n.target.join(" "))}))}))`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("running axe-core: %v", err)
			}
			if got.Passes == 0 {
				t.Fatal("axe-core checked nothing")
			}
			for _, v := range got.Violations {
				if why, ok := axeAllowed[v.ID]; ok {
					t.Logf("allowed: %s (%s): %s", v.ID, why, strings.Join(v.Nodes, ", "))
					continue
				}
				t.Errorf("%s", fmt.Sprintf("%s (%s): %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", ")))
			}
		})
	}
}
