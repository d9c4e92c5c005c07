package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// hookflow builds the hookflow command into a temporary directory.
func hookflow(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hookflow")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/hookflow").CombinedOutput(); err != nil {
		t.Fatalf("building hookflow: %v\n%s", err, out)
	}
	return bin
}

// TestExplain prints the plan of tools/call for the mounted tools: the
// server's audit, then the app's auth and rate limit.
func TestExplain(t *testing.T) {
	cmd := exec.Command(hookflow(t), "gateway", "-config", "gateway.yaml", "-explain", "tools:call-tool")
	cmd.Env = append(os.Environ(), "GATEWAY_TOKEN=demo")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := `tools:call-tool tool test_simple_text
  beforeValidation
        audit  everything-gateway/plugin:audit/tools:call-tool/beforeValidation/start
         auth  everything-gateway/app:everything/plugin:auth/tools:call-tool/beforeValidation/scopes
    ratelimit  everything-gateway/app:everything/plugin:ratelimit/tools:call-tool/beforeValidation/take
`
	if !strings.Contains(string(out), want) {
		t.Errorf("-explain printed:\n%s\nwant it to contain:\n%s", out, want)
	}
}

// TestServe runs the README's command (on a free port) and calls the
// upstream's tools through the gateway: with the token, without it, and
// a tool whose scope the token lacks.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, hookflow(t), "gateway", "-config", "gateway.yaml", "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "GATEWAY_TOKEN=demo")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var logs lockedBuffer
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		logs.Write(append(lines.Bytes(), '\n'))
		if !strings.Contains(lines.Text(), "serving streamable HTTP") {
			continue
		}
		if _, rest, ok := strings.Cut(lines.Text(), " addr="); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
	}
	if addr == "" {
		t.Fatalf("the gateway did not start:\n%s", logs.String())
	}
	go func() {
		for lines.Scan() {
			logs.Write(append(lines.Bytes(), '\n'))
		}
	}()
	url := "http://" + addr + "/mcp"

	connect := func(token string) (*mcp.ClientSession, error) {
		hc := &http.Client{Transport: bearer{token: token}}
		return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	}
	if cs, err := connect("wrong"); err == nil {
		cs.Close()
		t.Error("connected with a wrong token")
	}
	cs, err := connect("demo")
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "This is a simple text response for testing") {
		t.Errorf("test_simple_text = %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "admin") {
		t.Errorf("test_error_handling with a token without the admin scope = %+v, %v", res, err)
	}
	cs.Close()
	cancel()
	cmd.Wait()
	if !strings.Contains(logs.String(), `"flow":"tools:call-tool"`) {
		t.Errorf("no audit event of tools:call-tool in the gateway's output:\n%s", logs.String())
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
