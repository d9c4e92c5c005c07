package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
)

// wait bounds every wait of the tests: for a process to start serving
// (the first run of "go run ../everything" compiles it) and for an audit
// line to be written.
const wait = 2 * time.Minute

// hookflowBin is the hookflow command, built once by TestMain.
var hookflowBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hookflow-gateway-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hookflowBin = filepath.Join(dir, "hookflow")
	if out, err := exec.Command("go", "build", "-o", hookflowBin, "../../cmd/hookflow").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building hookflow: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds the command in dir (relative to this package) into a
// temporary directory.
func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	if out, err := exec.Command("go", "build", "-o", bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", dir, err, out)
	}
	return bin
}

// start starts cmd, its output going to the returned buffer, and waits
// (at most wait) for a line of it that find accepts, returning what find
// returns; the process is stopped when the test ends.
func start(t *testing.T, cmd *exec.Cmd, find func(line string) (string, bool)) (string, *plugintest.Buffer) {
	t.Helper()
	out := &plugintest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// An interrupt lets the gateway close its upstreams' sessions and
	// flush its audit lines; WaitDelay bounds it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Cancel()
		<-exited
	})
	deadline := time.After(wait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, line := range out.Lines() {
			if v, ok := find(line); ok {
				return v, out
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before serving:\n%s", cmd.Path, out.String())
		case <-deadline:
			t.Fatalf("%s did not serve within %v:\n%s", cmd.Path, wait, out.String())
		case <-tick.C:
		}
	}
}

// startGateway runs hookflow gateway with args on a free loopback port,
// with env added to the environment, and returns its MCP endpoint and its
// output: the log and the audit lines.
func startGateway(t *testing.T, env []string, args ...string) (string, *plugintest.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), hookflowBin, append(append([]string{"gateway"}, args...), "-http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), env...)
	addr, out := start(t, cmd, func(line string) (string, bool) {
		if !strings.Contains(line, "serving streamable HTTP") {
			return "", false
		}
		_, rest, ok := strings.Cut(line, " addr=")
		addr, _, _ := strings.Cut(rest, " ")
		return addr, ok
	})
	return "http://" + addr + "/mcp", out
}

// connect connects a client to the gateway at url, sending token as a
// bearer token when it is not empty.
func connect(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	hc := plugintest.BearerClient(token, nil)
	return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// text returns the text of a tool result's content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// auditEvent waits (at most wait) for an audit line in out that match
// accepts, and returns it.
func auditEvent(t *testing.T, out *plugintest.Buffer, match func(audit.Event) bool) audit.Event {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		for _, line := range out.Lines() {
			var ev audit.Event
			if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &ev) == nil && match(ev) {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no such audit event within %v in the gateway's output:\n%s", wait, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExplain prints the plan of tools/call for the mounted tools: the
// server's audit, then the app's auth and rate limit.
func TestExplain(t *testing.T) {
	cmd := exec.Command(hookflowBin, "gateway", "-config", "gateway.yaml", "-explain", "tools:call-tool")
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
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	url, logs := startGateway(t, []string{"GATEWAY_TOKEN=demo"}, "-config", "gateway.yaml")
	if cs, err := connect(ctx, url, "wrong"); err == nil {
		cs.Close()
		t.Error("connected with a wrong token")
	}
	cs, err := connect(ctx, url, "demo")
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
	if err != nil || res.IsError || !strings.Contains(text(res), "This is a simple text response for testing") {
		t.Errorf("test_simple_text = %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "admin") {
		t.Errorf("test_error_handling with a token without the admin scope = %+v, %v", res, err)
	}
	auditEvent(t, logs, func(ev audit.Event) bool { return ev.Flow == "tools:call-tool" })
}

// TestRateLimit calls a tool through the gateway faster than the app's
// limit (per_session: 5/s, a burst of 5): the burst is served, a call
// beyond it is refused with the ratelimit plugin's reason, and the audit
// event of the refused call names the plugin's hook as what decided it.
func TestRateLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	url, logs := startGateway(t, []string{"GATEWAY_TOKEN=demo"}, "-config", "gateway.yaml")
	cs, err := connect(ctx, url, "demo")
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()
	// 50 calls in a row stay under the limit only if they take 10s: the
	// budget refills by 5 a second.
	served, refusal := 0, ""
	for range 50 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		if err != nil {
			t.Fatalf("call %d: %v\n%s", served+1, err, logs.String())
		}
		if res.IsError {
			refusal = text(res)
			break
		}
		served++
	}
	if refusal == "" {
		t.Fatalf("50 calls in a row were all served, want the limit of 5/s to refuse one\n%s", logs.String())
	}
	if served < 5 {
		t.Errorf("only %d calls were served before a refusal, want the burst of 5", served)
	}
	if !strings.HasPrefix(refusal, "rate limit: too many calls in this session; retry after ") {
		t.Errorf("refusal = %q, want the ratelimit plugin's reason", refusal)
	}
	const hook = "everything-gateway/app:everything/plugin:ratelimit/tools:call-tool/beforeValidation/take"
	ev := auditEvent(t, logs, func(ev audit.Event) bool { return ev.Outcome == audit.Blocked })
	if ev.Flow != "tools:call-tool" || ev.Entity != "test_simple_text" || ev.DecidedBy != hook || ev.Error != refusal {
		t.Errorf("audit event of the refused call: %+v\nwant tools:call-tool of test_simple_text, decided by %s, error %q", ev, hook, refusal)
	}
}

// TestGuarded runs examples/guard over streamable HTTP on a loopback port
// and the gateway configured by guarded.yaml in front of examples/everything
// (the file's guard URL and dir made to fit): the guard's mutator redacts
// the e-mail address a tool echoes, and its validator refuses a destructive
// command, the client reading which interceptor refused it and the audit
// event naming it as the decider.
func TestGuarded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	guard := exec.CommandContext(t.Context(), build(t, "../guard"), "-http", "127.0.0.1:0")
	guard.Env = append(os.Environ(), "GUARD_TOKEN=s3cret")
	guardURL, _ := start(t, guard, func(line string) (string, bool) {
		_, url, ok := strings.Cut(line, "guard: serving interceptors on ")
		return url, ok
	})
	config, err := os.ReadFile("guarded.yaml")
	if err != nil {
		t.Fatal(err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(config)
	for _, r := range []struct{ old, new string }{{"url: http://127.0.0.1:8090\n", "url: " + guardURL + "\n"}, {"dir: .\n", "dir: " + here + "\n"}} {
		if strings.Count(yaml, r.old) != 1 {
			t.Fatalf("guarded.yaml has %q %d times, want once", r.old, strings.Count(yaml, r.old))
		}
		yaml = strings.Replace(yaml, r.old, r.new, 1)
	}
	file := filepath.Join(t.TempDir(), "guarded.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	url, logs := startGateway(t, []string{"GUARD_TOKEN=s3cret"}, "-config", file)
	cs, err := connect(ctx, url, "")
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, logs.String())
	}
	defer cs.Close()

	for _, tc := range []struct {
		name    string
		args    map[string]any
		isError bool
		// want is in the result's text, wantNot is not.
		want, wantNot string
		// by, what and outcome are a decision of the call's audit event;
		// decidedBy is the event's decider.
		by, what, outcome, decidedBy string
	}{
		{"redacted", map[string]any{"name": "Ada", "email": "ada@example.com"}, false,
			`"email":"[email]"`, "ada@example.com", "guard:pii-redactor", "mutation request", "modified", ""},
		{"refused", map[string]any{"name": "Bob; rm -rf /", "email": "x"}, true,
			`the request was blocked by an interceptor (guard:no-destructive-commands): params.arguments.name: "rm -rf" is a destructive command`, "",
			"guard:no-destructive-commands", "validation request", "blocked",
			"guarded-gateway/plugin:intercept/tools:call-tool/beforeExecute/guard:no-destructive-commands"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "json_schema_2020_12_tool", Arguments: tc.args})
			if err != nil {
				t.Fatalf("call: %v\n%s", err, logs.String())
			}
			got := text(res)
			if res.IsError != tc.isError || !strings.Contains(got, tc.want) || (tc.wantNot != "" && strings.Contains(got, tc.wantNot)) {
				t.Errorf("result: isError=%v %q\nwant isError=%v, containing %q and not %q", res.IsError, got, tc.isError, tc.want, tc.wantNot)
			}
			ev := auditEvent(t, logs, func(ev audit.Event) bool {
				return ev.Entity == "json_schema_2020_12_tool" && strings.Contains(string(ev.Args), tc.args["name"].(string))
			})
			found := false
			for _, d := range ev.Decisions {
				found = found || d.By == tc.by && d.What == tc.what && d.Outcome == tc.outcome
			}
			if !found || ev.DecidedBy != tc.decidedBy {
				t.Errorf("audit event: %+v\nwant a decision %s %s %s, decided by %q", ev, tc.by, tc.what, tc.outcome, tc.decidedBy)
			}
		})
	}
}
