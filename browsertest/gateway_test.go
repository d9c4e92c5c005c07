package browsertest_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayConsole drives the console of a hookflow gateway in front
// of the quickstart (over stdio, as the upstream "weather"), configured
// by the console key of the gateway's file: the live list names the
// upstream of a call, the upstreams page shows it up from the readiness
// report, and the console answers 401 without its token.
func TestGatewayConsole(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	for _, pkg := range []string{"cmd/hookflow", "examples/quickstart"} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, filepath.Base(pkg)), "./"+pkg)
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	mcpAddr, consoleAddr := freeAddr(t), freeAddr(t)
	config := fmt.Sprintf(`name: console-gateway
serve:
  http: %[1]s
  health: /health
upstreams:
  - name: weather
    command: [%[2]s]
plugins:
  console:
    addr: %[3]s
    token_env: HOOKFLOW_CONSOLE_TOKEN
    health_url: http://%[1]s/health/ready
`, mcpAddr, filepath.Join(dir, "quickstart"), consoleAddr)
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cmd := exec.Command(filepath.Join(dir, "hookflow"), "gateway", "-config", file)
	cmd.Env = append(os.Environ(), "HOOKFLOW_CONSOLE_TOKEN="+consoleToken)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("the gateway's output:\n%s", log.String())
		}
	})
	consoleURL := "http://" + consoleAddr + "/console"
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(consoleURL + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("without the token: %s", resp.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console did not answer: %v\n%s", err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The console listens on its own address before the gateway has
	// connected its upstreams; the MCP listener opens after them.
	for {
		resp, err := http.Get("http://" + mcpAddr + "/health/live")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway did not listen: %v\n%s", err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browsertest", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + mcpAddr + "/"}, nil)
	if err != nil {
		t.Fatalf("connecting to the gateway: %v\n%s", err, log.String())
	}
	defer cs.Close()
	if err := authorized(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(consoleURL+"/")); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, ctx, `document.getElementById("runs").dataset.live === "live"`, 30*time.Second)
	if got := call(t, cs, "get_weather", map[string]any{"city": "Paris"}); !strings.Contains(got, "Paris") {
		t.Errorf("get_weather through the gateway: %q", got)
	}
	waitTrue(t, ctx, `[...document.querySelectorAll("#runs tbody tr.run")].some(r => r.cells[2].innerText === "get_weather" && r.cells[3].innerText === "weather")`, 10*time.Second)
	shots := artifacts(t)
	screenshot(t, ctx, shots, "gateway-runs")
	if err := chromedp.Do(ctx, chromedp.Navigate(consoleURL+"/upstreams")); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.upstreams tbody tr")].map(r => r.cells[0].innerText + " " + r.cells[1].innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != "weather up" {
		t.Errorf("upstreams %q, want [weather up]\n%s", rows, html(t, ctx))
	}
	noSecret(t, "the upstreams page", html(t, ctx))
	screenshot(t, ctx, shots, "gateway-upstreams")
}
