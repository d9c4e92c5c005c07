package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// errorChecks are the requests testdata/clients/errors.mjs makes, and the
// outcome each must have on both transports where one is fixed: a method
// the server has no capability for is a JSON-RPC error, not a refused
// POST.
var errorChecks = []struct{ name, want string }{
	{"unknown method", ""},
	{"method without capability", "McpError -32601"},
	{"invalid params", ""},
	{"unknown tool", ""},
}

// TestClientsWorldErrors serves one server (an echo tool, no resource
// subscriptions) over hookflow's transport and over the SDK's own handler,
// and checks that the TypeScript SDK's client and the MCP Inspector's CLI
// see the same outcome from both for requests the server refuses: an
// unknown method, a method without its capability, invalid params and an
// unknown tool.
func TestClientsWorldErrors(t *testing.T) {
	node, world := os.Getenv("HOOKFLOW_NODE"), os.Getenv("HOOKFLOW_WORLD")
	if node == "" || world == "" {
		if os.Getenv("HOOKFLOW_REQUIRE_WORLD") != "" {
			t.Fatal("HOOKFLOW_REQUIRE_WORLD is set but HOOKFLOW_NODE or HOOKFLOW_WORLD is not: run eval \"$(.ci/world/install.sh)\"")
		}
		t.Skip("HOOKFLOW_NODE and HOOKFLOW_WORLD are not set: eval \"$(.ci/world/install.sh)\" installs the Node clients and sets them")
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "errors", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (echoIn, error) {
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	ours, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.SDK() }, nil)
	urls := map[string]string{}
	for name, h := range map[string]http.Handler{"hookflow": ours, "sdk": theirs} {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		urls[name] = hs.URL + "/mcp"
	}

	t.Run("typescript sdk", func(t *testing.T) {
		got := map[string]map[string]string{}
		for name, url := range urls {
			got[name] = typescriptErrors(t, node, world, url)
		}
		for _, c := range errorChecks {
			ours, theirs := got["hookflow"][c.name], got["sdk"][c.name]
			switch {
			case ours == "" || theirs == "":
				t.Errorf("%s: not reported (hookflow %q, SDK %q)", c.name, ours, theirs)
			case ours != theirs:
				t.Errorf("%s: hookflow %s, SDK %s", c.name, ours, theirs)
			case c.want != "" && ours != c.want:
				t.Errorf("%s: %s from both, want %s", c.name, ours, c.want)
			default:
				t.Logf("%s: %s from both", c.name, ours)
			}
		}
	})
	t.Run("inspector cli", func(t *testing.T) {
		for _, args := range [][]string{
			{"--method", "tools/call", "--tool-name", "nope"},
			{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=7"},
		} {
			ours, theirs := inspectorOutcome(t, node, world, urls["hookflow"], args), inspectorOutcome(t, node, world, urls["sdk"], args)
			if ours != theirs {
				t.Errorf("%s: hookflow %s, SDK %s", strings.Join(args, " "), ours, theirs)
			} else {
				t.Logf("%s: %s from both", strings.Join(args, " "), ours)
			}
		}
	})
}

// typescriptErrors runs testdata/clients/errors.mjs against url and
// returns the outcome of each of its checks.
func typescriptErrors(t *testing.T, node, world, url string) map[string]string {
	t.Helper()
	client := exec.Command(node, "testdata/clients/errors.mjs", url)
	client.Env = append(os.Environ(), "HOOKFLOW_WORLD="+world)
	var stderr bytes.Buffer
	client.Stderr = &stderr
	out, err := client.Output()
	if err != nil {
		t.Errorf("the client: %v\n%s", err, stderr.String())
	}
	got := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		var l struct {
			Check, Detail string
			OK            bool
		}
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			t.Fatalf("the client printed %q", lines.Text())
		}
		if !l.OK {
			t.Errorf("%s: %s", l.Check, l.Detail)
			continue
		}
		got[l.Check] = l.Detail
	}
	return got
}

// inspectorOutcome runs the MCP Inspector's CLI with args against url and
// names the outcome: the error the CLI reports on its last line (it names
// an unknown tool tool_not_found, an error result tool_is_error), a
// result, or its exit status.
func inspectorOutcome(t *testing.T, node, world, url string, args []string) string {
	t.Helper()
	pkg := filepath.Join(world, "node_modules", "@modelcontextprotocol", "inspector")
	manifest, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Bin map[string]string }
	if err := json.Unmarshal(manifest, &meta); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(pkg, meta.Bin["mcp-inspector"]), "--cli", url, "--transport", "http"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var last struct {
		Error *struct{ Code, Message string }
	}
	if json.Unmarshal(lines[len(lines)-1], &last) == nil && last.Error != nil {
		return "error " + last.Error.Code
	}
	if err != nil {
		return "failed: " + err.Error() + ": " + string(out)
	}
	return "result"
}
