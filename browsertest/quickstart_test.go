package browsertest_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
)

// The tokens the quickstart runs with: the MCP endpoint's (it grants
// weather.admin) and the console's.
const (
	mcpToken     = "mcp-token-the-browser-must-never-see"
	consoleToken = "console-token-the-pages-must-never-show"
)

// required reports whether a missing browser or axe-core fails the test.
func required() bool { return os.Getenv("HOOKFLOW_REQUIRE_BROWSER") == "1" }

// skip skips t, or fails it when the browser is required.
func skip(t *testing.T, why string) {
	t.Helper()
	if required() {
		t.Fatalf("HOOKFLOW_REQUIRE_BROWSER=1: %s", why)
	}
	t.Skip(why)
}

// chromium returns the browser's binary, or skips t.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HOOKFLOW_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	skip(t, "no chromium: install Debian's chromium, or set HOOKFLOW_CHROMIUM")
	return ""
}

// artifacts returns the directory screenshots go to.
func artifacts(t *testing.T) string {
	if d := os.Getenv("HOOKFLOW_BROWSER_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// syncBuffer is a bytes.Buffer safe for a process's output and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// quickstart is examples/quickstart serving MCP and the console.
type quickstart struct {
	mcpURL, consoleURL string
	log                *syncBuffer
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startQuickstart builds and starts the quickstart with -http, -token,
// -console and the flags in more, and waits until the console answers.
func startQuickstart(t *testing.T, more ...string) *quickstart {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "quickstart")
	// Built in the repository's own module, with its go.mod.
	build := exec.Command("go", "build", "-o", bin, "./examples/quickstart")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mcpAddr, consoleAddr := freeAddr(t), freeAddr(t)
	q := &quickstart{mcpURL: "http://" + mcpAddr + "/", consoleURL: "http://" + consoleAddr + "/console", log: &syncBuffer{}}
	cmd := exec.Command(bin, append([]string{"-http", mcpAddr, "-token", mcpToken, "-console", consoleAddr}, more...)...)
	cmd.Env = append(os.Environ(), "HOOKFLOW_CONSOLE_TOKEN="+consoleToken)
	cmd.Stdout, cmd.Stderr = q.log, q.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("quickstart's output:\n%s", q.log.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(q.consoleURL + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return q
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console did not answer: %v\n%s", err, q.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// session connects an MCP client to the quickstart with its token.
func (q *quickstart) session(t *testing.T) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: q.mcpURL, HTTPClient: plugintest.BearerClient(mcpToken, nil)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browsertest", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls tool with args and returns the result's first text.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// browser starts a headless chromium with a fresh profile, as .ci/run
// does: no sandbox (CI runs as root in a container), no GPU, no QUIC, no
// first-run, background networking, component updates or sync, so that
// the browser reaches nothing but the console.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}
