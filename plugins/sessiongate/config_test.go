package sessiongate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// TestConfigValidate: each setting a file can get wrong is reported at
// its path in the file's spelling, with a message the user can act on.
func TestConfigValidate(t *testing.T) {
	t.Setenv("SG_TEST_PASSWORD", "secret")
	work := []string{"work"}
	for _, tc := range []struct {
		name string
		cfg  sessiongate.Config
		want []string
	}{
		{"valid", sessiongate.Config{InitTool: "start", ReadyTool: "check", Requires: work, SessionKey: "header:X-Conversation",
			OnStoreError: flows.FailOpen, Timeout: time.Second, Idle: time.Hour,
			Redis:    &sessiongate.RedisConfig{Addr: "redis:6379", PasswordEnv: "SG_TEST_PASSWORD", Prefix: "gate:"},
			Messages: &sessiongate.Messages{Uninitialized: "Call {call} before {tool}.", NotReady: "Run {ready_tool}.", Initialized: "Now {ready_tool}.", Ready: "Go."}}, nil},
		{"valid require_all", sessiongate.Config{RequireAll: true, Exempt: []string{"free"}, SessionKey: "principal", Unlist: true}, nil},
		{"nothing gated", sessiongate.Config{}, []string{": no tool is gated: set requires or require_all"}},
		{"ready is init", sessiongate.Config{Requires: work, ReadyTool: "session_init"}, []string{`ready_tool: "session_init" is the init tool`}},
		{"requires", sessiongate.Config{Requires: []string{"a", "", "start"}, InitTool: "start"},
			[]string{"requires[1]: a tool name is empty", `requires[2]: "start" is the init tool, which is never gated`}},
		{"exempt", sessiongate.Config{RequireAll: true, Exempt: []string{""}}, []string{"exempt[0]: a tool name is empty"}},
		{"exempt without require_all", sessiongate.Config{Requires: work, Exempt: []string{"b"}}, []string{"exempt: only require_all gates tools to exempt (requires lists the gated ones)"}},
		{"timeout", sessiongate.Config{Requires: work, Timeout: -time.Second}, []string{"timeout: must not be negative, got -1s"}},
		{"idle", sessiongate.Config{Requires: work, Idle: -time.Hour}, []string{"idle: must not be negative, got -1h0m0s"}},
		{"policy", sessiongate.Config{Requires: work, OnStoreError: 4}, []string{"on_store_error: unknown policy 4: want closed or open"}},
		{"key", sessiongate.Config{Requires: work, SessionKey: "sesion"}, []string{`key: unknown key "sesion": want session, principal or header:<name> (did you mean "session"?)`}},
		{"key header", sessiongate.Config{Requires: work, SessionKey: "header:X Conv"}, []string{`key: want an HTTP header name after header:, such as header:X-Conversation, got "header:X Conv"`}},
		{"empty key header", sessiongate.Config{Requires: work, SessionKey: "header:"}, []string{`key: want an HTTP header name after header:, such as header:X-Conversation, got "header:"`}},
		{"Go key wins", sessiongate.Config{Requires: work, SessionKey: "nonsense", Key: sessiongate.ByPrincipal}, nil},
		{"redis addr", sessiongate.Config{Requires: work, Redis: &sessiongate.RedisConfig{}}, []string{"redis.addr: required: the Redis server's host:port, such as 127.0.0.1:6379"}},
		{"redis port", sessiongate.Config{Requires: work, Redis: &sessiongate.RedisConfig{Addr: "redis:port"}}, []string{`redis.addr: want host:port, such as 127.0.0.1:6379, got "redis:port"`}},
		{"redis password", sessiongate.Config{Requires: work, Redis: &sessiongate.RedisConfig{Addr: "r:1", PasswordEnv: "SG_TEST_UNSET"}}, []string{"redis.password_env: environment variable SG_TEST_UNSET is not set"}},
		{"redis db", sessiongate.Config{Requires: work, Redis: &sessiongate.RedisConfig{Addr: "r:1", DB: -3}}, []string{"redis.db: must not be negative, got -3"}},
		{"redis and store", sessiongate.Config{Requires: work, Store: sessiongate.NewMemory(nil), Redis: &sessiongate.RedisConfig{Addr: "r:1"}}, []string{"redis: Config.Store is set too: keep one"}},
		{"unlist redis", sessiongate.Config{Requires: work, Unlist: true, Redis: &sessiongate.RedisConfig{Addr: "r:1"}},
			[]string{"unlist: the Redis store cannot answer without I/O: leave unlist off, or keep the states in memory"}},
		{"unlist Go store", sessiongate.Config{Requires: work, Unlist: true, Store: failing{}},
			[]string{"unlist: the store (sessiongate_test.failing) cannot answer without I/O; use a Peeker such as sessiongate.Memory, or leave unlist off"}},
		{"placeholder", sessiongate.Config{Requires: work, Messages: &sessiongate.Messages{Uninitialized: "Call {cal} first.", Ready: "ok {"}},
			[]string{`messages.uninitialized: unknown placeholder {cal}: want {tool}, {call} or {ready_tool} (did you mean {call}?)`,
				"messages.ready: an unclosed { at byte 3: placeholders are {tool}, {call} and {ready_tool}"}},
		{"initialized without ready tool", sessiongate.Config{Requires: work, Messages: &sessiongate.Messages{Initialized: "Now go."}},
			[]string{"messages.initialized: is read only with a ready_tool: without one the init tool makes the session ready (word that in messages.ready)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldLines(t, tc.cfg.Validate())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestMessages: the texts a file words replace the defaults, with their
// placeholders filled in; those it leaves out stay the defaults.
func TestMessages(t *testing.T) {
	g := newGated(t, sessiongate.Config{ReadyTool: "check_ready", Requires: []string{"work"}, Messages: &sessiongate.Messages{
		Uninitialized: "{tool} waits: call {call}.",
		NotReady:      "{tool} waits for {call} ({ready_tool}).",
		Initialized:   "Next: {ready_tool}, after {tool}.",
	}})
	g.run(t, connect(t, g.srv), []step{
		{tool: "work", isError: true, texts: []string{"work waits: call session_init."}},
		{tool: "session_init", texts: []string{"session_init ok", "Next: check_ready, after session_init."}, moves: []string{"session_init: uninitialized → initialized"}},
		{tool: "work", isError: true, texts: []string{"work waits for check_ready (check_ready)."}},
		{tool: "check_ready", texts: []string{"check_ready ok", "The session is ready: you may now use the other tools."}, moves: []string{"check_ready: initialized → ready"}},
	})
}

// TestRedisFromConfig: two instances configured as a file would — a
// redis section and key header:X-Conversation — share a conversation's
// state over stateless HTTP, as with a Store and Key given in Go.
func TestRedisFromConfig(t *testing.T) {
	addr := redisServer.Addr(t)
	prefix := fmt.Sprintf("hookflow-test:%d:%d:config:", os.Getpid(), prefixSeq.Add(1))
	instance := func() string {
		g := newGated(t, sessiongate.Config{Requires: []string{"work"}, SessionKey: "header:X-Conversation",
			Redis: &sessiongate.RedisConfig{Addr: addr, Prefix: prefix}})
		t.Cleanup(func() { g.gate.Close() })
		if _, ok := g.gate.Store().(*sessiongate.Redis); !ok {
			t.Fatalf("Store() = %T, want *sessiongate.Redis", g.gate.Store())
		}
		h, err := g.srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	callText := func(url, conversation, tool string) string {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerRT{conversation}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	a, b := instance(), instance()
	if got := callText(a, "conv-1", "session_init"); got != "session_init ok" {
		t.Errorf("init on A: %q", got)
	}
	if got := callText(b, "conv-1", "work"); got != "work ok" {
		t.Errorf("work on B after init on A: %q", got)
	}
	if got := callText(b, "conv-2", "work"); got != blockedInit("work") {
		t.Errorf("another conversation: %q", got)
	}
}
