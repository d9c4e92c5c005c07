package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// upstreamBin is the test upstream (internal/testupstream), built once by
// TestMain.
var upstreamBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gateway-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	upstreamBin = filepath.Join(dir, "upstream")
	out, err := exec.Command("go", "build", "-o", upstreamBin, "./internal/testupstream").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test upstream: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stdio returns an upstream that runs the test upstream over stdio.
func stdio(name string) gateway.Upstream {
	return gateway.Upstream{Name: name, Command: []string{upstreamBin}, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}

// httpUpstream starts the test upstream over streamable HTTP (with extra
// flags) and returns an upstream for its URL; it stops with the test.
func httpUpstream(t *testing.T, name string, flags ...string) gateway.Upstream {
	t.Helper()
	u, _ := startHTTPUpstream(t, name, flags...)
	return u
}

// startHTTPUpstream is httpUpstream that also returns the process.
func startHTTPUpstream(t *testing.T, name string, flags ...string) (gateway.Upstream, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(upstreamBin, append([]string{"-http"}, flags...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the upstream's address: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		t.Fatalf("upstream said %q", line)
	}
	return gateway.Upstream{Name: name, URL: url, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}, cmd
}

// serve starts a server mounting ups through a gateway (set up further by
// setup, when not nil) and returns it with the gateway.
func serve(t *testing.T, setup func(*framework.Server), ups ...gateway.Upstream) (*framework.Server, *gateway.Gateway) {
	t.Helper()
	srv, gw, _ := serveLogged(t, setup, ups...)
	return srv, gw
}

// serveLogged is serve, with the server's log written to the returned
// buffer.
func serveLogged(t *testing.T, setup func(*framework.Server), ups ...gateway.Upstream) (*framework.Server, *gateway.Gateway, *plugintest.Buffer) {
	t.Helper()
	logs := &plugintest.Buffer{}
	gw := gateway.New(gateway.Config{Upstreams: ups})
	srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, &framework.Options{
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Subscribe: gw.Subscribe, Unsubscribe: gw.Unsubscribe})
	if err := srv.Use(gw); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(srv)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gw.Close() })
	return srv, gw, logs
}

// connect connects a client with opts (nil for none) to srv in memory.
func connect(t *testing.T, srv *framework.Server, opts *mcp.ClientOptions, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, opts)
	c.AddRoots(roots...)
	return connectClient(t, srv, c)
}

// connectClient connects c to srv in memory.
func connectClient(t *testing.T, srv *framework.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls tool with args and returns the result's text; a protocol
// error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return text(res), res.IsError
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// eventually calls check until it returns true, for at most a minute
// (a bound on a hang, not a timing assertion).
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// httptestServer serves h on loopback for the test and returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}
