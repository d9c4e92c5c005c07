package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
)

// startInterceptorHost runs the intercept plugin's test host serving the
// interceptors named in serve over streamable HTTP on loopback, behind
// token, and returns its URL.
func startInterceptorHost(t *testing.T, bin, serve, token string) string {
	t.Helper()
	cmd := exec.Command(bin, "-serve", serve, "-http", "127.0.0.1:0", "-token", token)
	return "http://" + startListening(t, cmd, "listening on ") + "/mcp"
}

// auditEvent is what the test reads of an audit event.
type auditEvent struct {
	Flow, Entity, Outcome string
	DecidedBy             string `json:"decided_by"`
	Decisions             []struct{ By, What, Outcome string }
}

// auditEvents reads the events of the audit file at path.
func auditEvents(t *testing.T, path string) []auditEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	var out []auditEvent
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// TestGatewayIntercept runs hookflow gateway in front of a real upstream
// process, with the intercept plugin running the interceptors of real host
// processes, twice: at the server level, those of a host over streamable
// HTTP with its bearer token from the environment (allow and deny); in an
// app, that of a host the gateway runs over stdio (allow). The first
// gateway blocks a call by guard:deny, the second serves it, allowed by
// local:allow, and the audit plugin of the same level records each
// decision with its interceptor; a third, whose app has no audit plugin,
// records the app's decisions with the server's.
func TestGatewayIntercept(t *testing.T) {
	hookflow, upstream, testhost := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream"), build(t, "plugins/intercept/internal/testhost")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	guardURL := startInterceptorHost(t, testhost, "allow,deny", "s3cret")
	t.Setenv("HOOKFLOW_TEST_GUARD_TOKEN", "s3cret")
	dir := t.TempDir()
	// call runs the gateway configured by yaml and calls echo through it.
	call := func(name, yaml string) (*mcp.CallToolResult, *plugintest.Buffer) {
		t.Helper()
		config := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(config, []byte("serve: {http: '127.0.0.1:0', health: /healthz}\n"+yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		addr, logs, _ := startGateway(t, hookflow, nil, "-config", config)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "intercept-test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connecting: %v\n%s", err, logs.String())
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
		if err != nil {
			t.Fatalf("echo: %v\n%s", err, logs.String())
		}
		return res, logs
	}
	decisions := func(e auditEvent) map[string]string {
		m := map[string]string{}
		for _, d := range e.Decisions {
			m[d.By+" "+d.What] = d.Outcome
		}
		return m
	}

	guarded := filepath.Join(dir, "guarded.jsonl")
	res, logs := call("guarded", `upstreams:
  - {name: up, url: '`+upURL+`'}
plugins:
  audit: {file: '`+guarded+`', flows: [tools:call-tool]}
  intercept:
    servers: [{name: guard, url: '`+guardURL+`', token_env: HOOKFLOW_TEST_GUARD_TOKEN}]
    timeout: 30s
`)
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "blocked") {
		t.Errorf("echo through guard: %+v, want an isError result saying it was blocked\n%s", res, logs.String())
	}
	var events []auditEvent
	waitFor(t, "the audit event", logs, func() bool { events = auditEvents(t, guarded); return len(events) == 1 })
	if e := events[0]; !strings.HasSuffix(e.DecidedBy, "/beforeExecute/guard:deny") ||
		decisions(e)["guard:deny validation request"] != "blocked" || decisions(e)["guard:allow validation request"] != "allowed" {
		t.Errorf("audit event: %+v, want it decided by guard:deny, with guard:deny blocked and guard:allow allowed", e)
	}

	open := filepath.Join(dir, "open.jsonl")
	res, logs = call("open", `upstreams:
  - {name: up, url: '`+upURL+`', app: open}
apps:
  - name: open
    plugins:
      audit: {file: '`+open+`', flows: [tools:call-tool]}
      intercept:
        servers: [{name: local, command: ['`+testhost+`', -serve, allow]}]
        policy:
          - {interceptor: 'local:allow', fail_open: false, timeout: 30s}
`)
	if res.IsError {
		t.Errorf("echo through local: %+v, want it served\n%s", res, logs.String())
	}
	waitFor(t, "the audit event", logs, func() bool { events = auditEvents(t, open); return len(events) == 1 })
	if e := events[0]; e.DecidedBy != "" || decisions(e)["local:allow validation request"] != "allowed" || decisions(e)["local:allow validation response"] != "allowed" {
		t.Errorf("audit event: %+v, want local:allow allowed on the request and the response", e)
	}

	// An app without an audit plugin: the server's records its decisions.
	server := filepath.Join(dir, "server.jsonl")
	res, logs = call("server-audit", `upstreams:
  - {name: up, url: '`+upURL+`', app: open}
plugins:
  audit: {file: '`+server+`', flows: [tools:call-tool]}
apps:
  - name: open
    plugins:
      intercept:
        servers: [{name: local, command: ['`+testhost+`', -serve, allow]}]
`)
	if res.IsError {
		t.Errorf("echo through local: %+v, want it served\n%s", res, logs.String())
	}
	waitFor(t, "the audit event", logs, func() bool { events = auditEvents(t, server); return len(events) == 1 })
	if e := events[0]; decisions(e)["local:allow validation request"] != "allowed" || decisions(e)["local:allow validation response"] != "allowed" {
		t.Errorf("the server's audit event: %+v, want the app's local:allow allowed on the request and the response", e)
	}
}

// TestGatewayInterceptExplain checks that -explain, which connects the
// upstreams and the interceptor hosts, shows each interceptor as a hook of
// the intercept plugin at its named position, in run order: on a request
// the validators, on the response those that hook it. A policy naming an
// interceptor no host lists, which only the hosts can tell, stops the
// start with a hint.
func TestGatewayInterceptExplain(t *testing.T) {
	upstream, testhost := build(t, "plugins/gateway/internal/testupstream"), build(t, "plugins/intercept/internal/testhost")
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := "upstreams:\n  - {name: up, command: ['" + upstream + "']}\n" +
		"plugins:\n  intercept:\n    servers: [{name: local, command: ['" + testhost + "', -serve, 'deny,allow']}]\n" +
		"    policy: [{interceptor: allow, hooks: [{events: [tools/call], phase: response}]}]\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gateway", "-config", config, "-explain", "tools:call-tool"}, stdio{out: &out, err: &errb}); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	want := `tools:call-tool tool echo
  beforeExecute
     intercept-request  hookflow-gateway/plugin:intercept/tools:call-tool/beforeExecute/local:deny
  afterExecute
    intercept-response  hookflow-gateway/plugin:intercept/tools:call-tool/afterExecute/local:allow
`
	if !strings.Contains(out.String(), want) {
		t.Errorf("-explain printed:\n%s\nwant it to contain:\n%s", out.String(), want)
	}

	yaml = strings.Replace(yaml, "interceptor: allow", "interceptor: 'local:alow'", 1)
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"gateway", "-config", config, "-explain", "tools:call-tool"}, stdio{out: &out, err: &errb})
	if want := "hookflow gateway: plugin \"intercept\" (hookflow-gateway/plugin:intercept): Config.Policy[0]: no server lists an interceptor \"alow\" (did you mean \"allow\"?)\n"; code != exitFailed || errb.String() != want {
		t.Errorf("a policy for an unknown interceptor: exit %d, output:\n%s\nwant exit 1 and:\n%s", code, errb.String(), want)
	}
}
