package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// httpUpstream starts the test upstream over streamable HTTP and returns
// its URL; it stops with the test.
func httpUpstream(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(upstreamBin, "-http")
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
	return url
}

// endpointsFile is a gateway file with two endpoints over the same two
// upstreams, each with its own selection, its own front plugin, and one
// with a renamed tool.
const endpointsFile = `
serve: {http: 127.0.0.1:0, health: /health}
upstreams:
  - name: up
    url: %s
  - name: local
    command: [%s]
    prefix: l_
    resource_prefix: l+
endpoints:
  - path: /mcp/support
    name: support
    select:
      - upstreams: [up]
        tools: [add_tool, echo, "new_*"]
      - upstreams: [local]
        prompts: ["l_*"]
    plugins:
      front: {header: support}
  - path: /mcp/finance
    select:
      - upstreams: ["*"]
        tools: [pid, l_environ]
    overrides:
      l_environ: {name: env, title: Environment, description: Says the environment.}
    plugins:
      front: {header: finance}
`

// serving serves cfg until the test ends and returns its base URL.
func serving(t *testing.T, cfg *host.Config) string {
	t.Helper()
	logs := &addrLog{Handler: slog.DiscardHandler, addrs: map[string]string{}, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- host.Serve(ctx, cfg, host.ServeOptions{Logger: slog.New(logs)}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	select {
	case <-logs.seen:
	case err := <-done:
		done <- nil
		t.Fatalf("Serve: %v", err)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	return "http://" + logs.addrs["hookflow gateway: serving streamable HTTP"]
}

// client connects to url, counting the tool list changes it is told of.
func client(t *testing.T, url string, changed *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) }})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func names(t *testing.T, cs *mcp.ClientSession) (tools, prompts []string) {
	t.Helper()
	ctx := context.Background()
	ts, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ts.Tools {
		tools = append(tools, x.Name)
	}
	if ps, err := cs.ListPrompts(ctx, nil); err == nil {
		for _, x := range ps.Prompts {
			prompts = append(prompts, x.Name)
		}
	}
	slices.Sort(tools)
	return tools, prompts
}

// refused reports whether calling tool fails.
func refused(cs *mcp.ClientSession, tool string) bool {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	return err != nil || res.IsError
}

// TestEndpoints serves two virtual endpoints over the same upstreams to
// two clients at once: each lists and calls only its own selection (one
// under a new name), each request goes through its own plugins, a list
// change on one reaches none of the other's clients, and health and
// -explain show both.
func TestEndpoints(t *testing.T) {
	specs := []host.PluginSpec{host.Plugin("front", newFront)}
	file := fmt.Sprintf(endpointsFile, httpUpstream(t), upstreamBin)
	cfg, err := host.ParseConfig("gateway.yaml", []byte(file), host.LoadOptions{Plugins: specs})
	if err != nil {
		t.Fatal(err)
	}
	base := serving(t, cfg)
	var supportChanged, financeChanged atomic.Int32
	support := client(t, base+"/mcp/support", &supportChanged)
	finance := client(t, base+"/mcp/finance", &financeChanged)

	if tools, prompts := names(t, support); !slices.Equal(tools, []string{"add_tool", "echo"}) || !slices.Equal(prompts, []string{"l_greet"}) {
		t.Errorf("support lists tools %v and prompts %v, want [add_tool echo] and [l_greet]", tools, prompts)
	}
	if tools, prompts := names(t, finance); !slices.Equal(tools, []string{"env", "pid"}) || len(prompts) != 0 {
		t.Errorf("finance lists tools %v and prompts %v, want [env pid] and none", tools, prompts)
	}
	ts, err := finance.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(ts.Tools, func(x *mcp.Tool) bool { return x.Name == "env" }); i < 0 || ts.Tools[i].Title != "Environment" || ts.Tools[i].Description != "Says the environment." {
		t.Errorf("finance's env: want the override's title and description, got %+v", ts.Tools)
	}
	for _, tc := range []struct {
		cs   *mcp.ClientSession
		who  string
		tool string
		ok   bool
	}{
		{support, "support", "echo", true},
		{support, "support", "pid", false},
		{support, "support", "env", false},
		{support, "support", "l_environ", false},
		{finance, "finance", "env", true},
		{finance, "finance", "pid", true},
		{finance, "finance", "l_environ", false},
		{finance, "finance", "echo", false},
		{finance, "finance", "add_tool", false},
	} {
		if got := !refused(tc.cs, tc.tool); got != tc.ok {
			t.Errorf("%s calling %s: ran %v, want %v", tc.who, tc.tool, got, tc.ok)
		}
	}
	if _, err := finance.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "l_greet", Arguments: map[string]string{"name": "x"}}); err == nil {
		t.Errorf("finance got support's prompt l_greet")
	}

	// Each endpoint's requests go through its own plugins.
	for path, want := range map[string]string{"/mcp/support": "support", "/mcp/finance": "finance", "/mcp": ""} {
		resp, err := http.Post(base+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Front"); got != want {
			t.Errorf("POST %s: went through front %q, want %q", path, got, want)
		}
	}

	// The upstream adds new_one and removes echo: support's view changes,
	// finance's does not.
	if _, err := support.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_tool", Arguments: map[string]any{"text": "new_one"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for supportChanged.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if tools, _ := names(t, support); !slices.Equal(tools, []string{"add_tool", "new_one"}) {
		t.Errorf("support lists %v after the change, want [add_tool new_one]", tools)
	}
	if tools, _ := names(t, finance); !slices.Equal(tools, []string{"env", "pid"}) || financeChanged.Load() != 0 {
		t.Errorf("finance lists %v after support's change and was told of %d changes, want [env pid] and none", tools, financeChanged.Load())
	}

	// Health reports each endpoint's upstreams under its path.
	resp, err := http.Get(base + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Upstreams []struct{ Name, Endpoint string }
	}
	err = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range rep.Upstreams {
		got = append(got, u.Endpoint+" "+u.Name)
	}
	if want := []string{" up", " local", "/mcp/support up", "/mcp/support local", "/mcp/finance up", "/mcp/finance local"}; !slices.Equal(got, want) {
		t.Errorf("health reports %q, want %q", got, want)
	}
}

// TestExplainEndpoints prints each endpoint's plans under its path, with
// the tools as its clients see them.
func TestExplainEndpoints(t *testing.T) {
	specs := []host.PluginSpec{host.Plugin("front", newFront)}
	file := fmt.Sprintf(endpointsFile, httpUpstream(t), upstreamBin)
	cfg, err := host.ParseConfig("gateway.yaml", []byte(file), host.LoadOptions{Plugins: specs})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := host.Explain(&b, cfg, flows.ToolsCallTool, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i, j := strings.Index(out, "endpoint /mcp/support:\n"), strings.Index(out, "endpoint /mcp/finance:\n")
	if i < 0 || j < i {
		t.Fatalf("plans:\n%s\nwant support's, then finance's, each under its path", out)
	}
	if !strings.Contains(out[j:], "tool env\n") || strings.Contains(out[j:], "l_environ") || strings.Contains(out[i:j], "tool pid\n") {
		t.Errorf("plans:\n%s\nwant finance's env and no pid on support", out)
	}
}

// TestEndpointErrors reports each mistake of an endpoint at its key's
// line and column.
func TestEndpointErrors(t *testing.T) {
	specs := []host.PluginSpec{host.Plugin("front", newFront)}
	head := "serve: {http: 127.0.0.1:0}\nupstreams:\n  - {name: files, command: [x]}\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"no path", "endpoints:\n  - select: [{}]\n", "gateway.yaml:5:5: an endpoint needs a path"},
		{"trailing slash", "endpoints:\n  - {path: /mcp/a/, select: [{}]}\n", `gateway.yaml:5:12: want a path such as /mcp/support (no trailing slash, no query), got "/mcp/a/"`},
		{"selects nothing", "endpoints:\n  - {path: /a}\n", "gateway.yaml:5:5: endpoint /a selects nothing"},
		{"unknown upstream", "endpoints:\n  - path: /a\n    select: [{upstreams: [file]}]\n", `gateway.yaml:6:27: "file" names no upstream (did you mean "files"?)`},
		{"bad glob", "endpoints:\n  - path: /a\n    select: [{tools: [\"a[\"]}]\n", `gateway.yaml:6:23: "a[" is not a glob`},
		{"unknown hint", "endpoints:\n  - path: /a\n    select: [{annotations: {readonly: true}}]\n", `gateway.yaml:6:28: "readonly" is not a tool hint`},
		{"two renames to one name", "endpoints:\n  - path: /a\n    select: [{}]\n    overrides: {x: {name: z}, y: {name: z}}\n", `gateway.yaml:7:41: x and y are both renamed "z"`},
		{"bad new name", "endpoints:\n  - path: /a\n    select: [{}]\n    overrides: {x: {name: \"a b\"}}\n", `gateway.yaml:7:27: want 1 to 128 letters`},
		{"unknown key", "endpoints:\n  - path: /a\n    select: [{tool: [x]}]\n", `unknown key "tool"`},
		{"overlapping paths", "endpoints:\n  - {path: /a, select: [{}]}\n  - {path: /a/b, select: [{}]}\n", "gateway.yaml:6:12: endpoint /a/b overlaps endpoints[0] (/a)"},
		{"endpoints only, none", "endpoints: []\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := host.ParseConfig("gateway.yaml", []byte(head+tc.file), host.LoadOptions{Plugins: specs})
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("ParseConfig: %v\nwant %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"endpoints only, none", "serve: {http: 127.0.0.1:0, endpoints_only: true}\nupstreams:\n  - {name: files, command: [x]}\n", "gateway.yaml:1:44: no endpoint to serve"},
		{"endpoints only, with plugins", "serve: {http: 127.0.0.1:0, endpoints_only: true}\nupstreams:\n  - {name: files, command: [x]}\nplugins: {noop: true}\nendpoints:\n  - {path: /a, select: [{}]}\n", "gateway.yaml:1:44: with endpoints_only the server's own path serves nothing"},
		{"stdio", "serve: {stdio: true}\nupstreams:\n  - {name: files, command: [x]}\nendpoints:\n  - {path: /a, select: [{}]}\n", "gateway.yaml:5:3: endpoints are paths of the HTTP listener, and stdio serves none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := host.ParseConfig("gateway.yaml", []byte(tc.file), host.LoadOptions{Plugins: specs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig: %v\nwant %q", err, tc.want)
			}
		})
	}
}
