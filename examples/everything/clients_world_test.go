package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientChecks are the checks testdata/clients/client.mjs reports, in its
// order.
var clientChecks = []string{
	"initialize", "tools/list", "progress during a call", "sampling during a call",
	"elicitation during a call", "a plain call", "close",
}

// TestClientsWorld serves examples/everything over hookflow's streamable
// HTTP transport, stateful and stateless, to clients nobody here wrote and
// to an older one:
//   - the MCP TypeScript SDK's client (testdata/clients/client.mjs):
//     initialize, tools/list, a call whose progress arrives on its SSE
//     stream before its result, calls during which the server asks the
//     client for sampling and elicitation (answered when stateful, refused
//     when stateless, where there is no session to answer on), DELETE;
//   - the MCP Inspector's CLI mode: tools/list and tools/call;
//   - a raw HTTP client on protocol 2025-03-26 (the only version with
//     batches): initialize, then a batch of two calls and a notification.
//
// .ci/world/install.sh installs Node 22, the SDK and the Inspector and
// prints HOOKFLOW_NODE and HOOKFLOW_WORLD; without them the Node clients
// are skipped, unless HOOKFLOW_REQUIRE_WORLD is set (CI sets it). The raw
// client always runs.
func TestClientsWorld(t *testing.T) {
	node, world := os.Getenv("HOOKFLOW_NODE"), os.Getenv("HOOKFLOW_WORLD")
	if (node == "" || world == "") && os.Getenv("HOOKFLOW_REQUIRE_WORLD") != "" {
		t.Fatal("HOOKFLOW_REQUIRE_WORLD is set but HOOKFLOW_NODE or HOOKFLOW_WORLD is not: run eval \"$(.ci/world/install.sh)\"")
	}
	for _, mode := range []struct {
		name      string
		stateless bool
	}{{"stateful", false}, {"stateless", true}} {
		t.Run(mode.name, func(t *testing.T) {
			url := serveHookflow(t, mode.stateless)
			t.Run("2025-03-26 batch", func(t *testing.T) { rawBatch(t, url, mode.stateless) })
			needNode := func(t *testing.T) {
				if node == "" || world == "" {
					t.Skip("HOOKFLOW_NODE and HOOKFLOW_WORLD are not set: eval \"$(.ci/world/install.sh)\" installs the Node clients and sets them")
				}
			}
			t.Run("typescript sdk", func(t *testing.T) { needNode(t); typescriptClient(t, node, world, url, mode.name) })
			t.Run("inspector cli", func(t *testing.T) { needNode(t); inspectorCLI(t, node, world, url) })
		})
	}
}

// serveHookflow serves a new examples/everything server over hookflow's
// transport and returns its URL.
func serveHookflow(t *testing.T, stateless bool) string {
	t.Helper()
	srv, _, err := newServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: stateless})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// typescriptClient runs testdata/clients/client.mjs against url and checks
// that it reported every check, each passed.
func typescriptClient(t *testing.T, node, world, url, mode string) {
	client := exec.Command(node, "testdata/clients/client.mjs", url, mode)
	client.Env = append(os.Environ(), "HOOKFLOW_WORLD="+world)
	var stderr bytes.Buffer
	client.Stderr = &stderr
	out, err := client.Output()
	if err != nil {
		t.Errorf("the client: %v\n%s", err, stderr.String())
	}
	type line struct {
		Check, Detail string
		OK            bool
	}
	results := map[string]line{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		var l line
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			t.Fatalf("the client printed %q", lines.Text())
		}
		results[l.Check] = l
	}
	for _, name := range clientChecks {
		t.Run(name, func(t *testing.T) {
			switch r, ok := results[name]; {
			case !ok:
				t.Errorf("the client did not report it (stderr: %s)", stderr.String())
			case r.OK:
				t.Log(r.Detail)
			default:
				t.Error(r.Detail)
			}
		})
	}
}

// inspectorCLI runs the MCP Inspector's CLI mode against url: tools/list,
// then a tools/call, each printing the result as JSON.
func inspectorCLI(t *testing.T, node, world, url string) {
	pkg := filepath.Join(world, "node_modules", "@modelcontextprotocol", "inspector")
	manifest, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version string
		Bin     map[string]string
	}
	if err := json.Unmarshal(manifest, &meta); err != nil {
		t.Fatal(err)
	}
	bin := meta.Bin["mcp-inspector"]
	if bin == "" {
		t.Fatalf("the Inspector %s names no mcp-inspector bin: %v", meta.Version, meta.Bin)
	}
	home := t.TempDir()
	run := func(t *testing.T, args ...string) []byte {
		t.Helper()
		args = append([]string{filepath.Join(pkg, bin), "--cli", url, "--transport", "http"}, args...)
		cmd := exec.Command(node, args...)
		// The Inspector keeps its catalog under the home directory.
		cmd.Env = append(os.Environ(), "HOME="+home)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %s: %v\n%s\n%s", strings.Join(args[1:], " "), err, out, stderr.String())
		}
		return out
	}
	t.Run("tools/list", func(t *testing.T) {
		var list mcp.ListToolsResult
		if out := run(t, "--method", "tools/list"); json.Unmarshal(out, &list) != nil {
			t.Fatalf("the Inspector %s printed %s", meta.Version, out)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "test_simple_text") || !slices.Contains(names, "test_tool_with_progress") {
			t.Errorf("the Inspector %s listed %v", meta.Version, names)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		out := run(t, "--method", "tools/call", "--tool-name", "test_simple_text")
		var res struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("the Inspector %s printed %s", meta.Version, out)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "This is a simple text response for testing." {
			t.Errorf("the Inspector %s got %s", meta.Version, out)
		}
	})
}

// rawBatch is a client of protocol 2025-03-26 written by hand: it
// initializes (stateful: with the session it is given, then
// notifications/initialized), then sends one batch of a ping, a tools/call
// and a notification, and wants both answers, whether they come as one
// JSON array or as events of one SSE stream. A batch of notifications
// alone gets 202.
func rawBatch(t *testing.T, url string, stateless bool) {
	const version = "2025-03-26"
	session := ""
	post := func(body string) (*http.Response, []json.RawMessage) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if !strings.Contains(body, `"initialize"`) {
			req.Header.Set("Mcp-Protocol-Version", version)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		msgs, err := readAnswer(res)
		if err != nil {
			t.Fatalf("POST %s: %v", body, err)
		}
		return res, msgs
	}

	res, msgs := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"raw-2025-03-26","version":"1"}}}`)
	var init struct {
		ID     int
		Result mcp.InitializeResult
	}
	if len(msgs) != 1 || json.Unmarshal(msgs[0], &init) != nil || init.ID != 1 || init.Result.ProtocolVersion != version {
		t.Fatalf("initialize: %s %s", res.Status, msgs)
	}
	session = res.Header.Get("Mcp-Session-Id")
	if stateless != (session == "") {
		t.Fatalf("stateless %v, yet the session is %q", stateless, session)
	}
	if res, msgs := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode != http.StatusAccepted || len(msgs) != 0 {
		t.Fatalf("notifications/initialized: %s %s", res.Status, msgs)
	}

	res, msgs = post(`[{"jsonrpc":"2.0","id":2,"method":"ping"},` +
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"test_simple_text","arguments":{}}},` +
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"none","progress":1}}]`)
	answers := map[string]json.RawMessage{}
	for _, m := range msgs {
		var a struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal(m, &a); err != nil || a.Result == nil || a.Error != nil {
			t.Fatalf("batch answer %s (%s)", m, res.Status)
		}
		answers[string(a.ID)] = a.Result
	}
	if len(answers) != 2 || answers["2"] == nil || answers[`"three"`] == nil {
		t.Fatalf("the batch of a ping, a call and a notification was answered with %s (%s)", msgs, res.Status)
	}
	var call mcp.CallToolResult
	if err := json.Unmarshal(answers[`"three"`], &call); err != nil || call.IsError || len(call.Content) != 1 {
		t.Fatalf("the batch's tools/call: %s", answers[`"three"`])
	}
	if text, ok := call.Content[0].(*mcp.TextContent); !ok || text.Text != "This is a simple text response for testing." {
		t.Errorf("the batch's tools/call: %s", answers[`"three"`])
	}
	t.Logf("a batch answered with %s, %d answers", res.Header.Get("Content-Type"), len(msgs))

	if res, msgs := post(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"none","progress":2}}]`); res.StatusCode != http.StatusAccepted || len(msgs) != 0 {
		t.Errorf("a batch of one notification: %s %s", res.Status, msgs)
	}
}

// readAnswer returns the JSON-RPC messages of a POST's answer: none for
// 202, each element of a JSON array or the one JSON object of an
// application/json body, or the data of each event of an SSE stream.
func readAnswer(res *http.Response) ([]json.RawMessage, error) {
	if res.StatusCode == http.StatusAccepted {
		return nil, nil
	}
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return nil, &answerError{res.Status, string(body)}
	}
	switch ct, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) {
	case "application/json":
		body, err := io.ReadAll(res.Body)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			var msgs []json.RawMessage
			return msgs, json.Unmarshal(body, &msgs)
		}
		return []json.RawMessage{body}, nil
	case "text/event-stream":
		return readEvents(res.Body)
	default:
		return nil, &answerError{res.Status, "Content-Type " + ct}
	}
}

// readEvents reads an SSE stream to its end and returns each event's data
// (its data lines joined by newlines, as the event stream format says).
func readEvents(r io.Reader) ([]json.RawMessage, error) {
	var msgs []json.RawMessage
	var data []string
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for lines.Scan() {
		line := lines.Text()
		if line == "" {
			if data != nil {
				msgs = append(msgs, json.RawMessage(strings.Join(data, "\n")))
			}
			data = nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		if field == "data" {
			data = append(data, strings.TrimPrefix(value, " "))
		}
	}
	if data != nil {
		msgs = append(msgs, json.RawMessage(strings.Join(data, "\n")))
	}
	return msgs, lines.Err()
}

// answerError is an answer that is not a JSON-RPC one.
type answerError struct{ status, detail string }

func (e *answerError) Error() string { return e.status + ": " + e.detail }
