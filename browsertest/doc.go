// Package browsertest drives hookflow's console in a real browser:
// Debian's chromium, headless, through the DevTools protocol
// (github.com/chromedp/chromedp), against the quickstart server. It is a
// module of its own, like benchmarks/, so that chromedp stays out of
// hookflow's go.mod; it builds against this tree through a replace
// directive.
//
//	cd browsertest && go test ./...
//
// The tests skip when no chromium is found (HOOKFLOW_CHROMIUM names its
// binary, else chromium on PATH); HOOKFLOW_REQUIRE_BROWSER=1 makes a skip
// a failure, as .ci/run sets it. HOOKFLOW_AXE names axe-core's
// axe.min.js (.ci/axe-core.sh installs it, pinned), which the
// accessibility test injects into each page; without it that test skips
// (fails under HOOKFLOW_REQUIRE_BROWSER). Screenshots of each page go to
// HOOKFLOW_BROWSER_ARTIFACTS, or to the test's temporary directory.
package browsertest
