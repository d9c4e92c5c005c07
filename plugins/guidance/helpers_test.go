package guidance_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// protocol is the protocol version the logging tests negotiate: one with
// initialize and logging/setLevel (the SDK's client sends no log level on
// 2026-07-28).
const protocol = "2025-11-25"

// logs collects the log messages a client receives.
type logs struct {
	mu   sync.Mutex
	msgs []*mcp.LoggingMessageParams
	more chan struct{}
}

func newLogs() *logs { return &logs{more: make(chan struct{}, 100)} }

func (l *logs) handler(_ context.Context, req *mcp.LoggingMessageRequest) {
	l.mu.Lock()
	l.msgs = append(l.msgs, req.Params)
	l.mu.Unlock()
	l.more <- struct{}{}
}

// wait returns the messages once one satisfies ok, failing t after a
// generous timeout.
func (l *logs) wait(t *testing.T, what string, ok func(*mcp.LoggingMessageParams) bool) *mcp.LoggingMessageParams {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		for _, m := range l.msgs {
			if ok(m) {
				l.mu.Unlock()
				return m
			}
		}
		l.mu.Unlock()
		select {
		case <-l.more:
		case <-timeout:
			t.Fatalf("no log message %s; got %s", what, l)
			return nil
		}
	}
}

// snapshot returns the messages received so far.
func (l *logs) snapshot() []*mcp.LoggingMessageParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*mcp.LoggingMessageParams(nil), l.msgs...)
}

func (l *logs) String() string {
	var parts []string
	for _, m := range l.snapshot() {
		b, _ := json.Marshal(m.Data)
		parts = append(parts, fmt.Sprintf("[%s %s] %s", m.Level, m.Logger, b))
	}
	return "[" + strings.Join(parts, "\n ") + "]"
}

// text is a log message's data when it is a string.
func text(m *mcp.LoggingMessageParams) string {
	s, _ := m.Data.(string)
	return s
}

// guidanceOf is the guidance of a structured log message, with its
// lifecycle.
func guidanceOf(m *mcp.LoggingMessageParams) (lifecycle, content string) {
	d, _ := m.Data.(map[string]any)
	l, _ := d["lifecycle"].(string)
	c, _ := d["guidance"].(string)
	return l, c
}

// client configures a test client.
type client struct {
	// features the client declares.
	sampling, elicitation, roots bool
	// logLevel, when set, is sent with logging/setLevel after connecting.
	logLevel mcp.LoggingLevel
	progress func(*mcp.ProgressNotificationParams)
	// http connects over streamable HTTP (stateful) instead of in memory.
	http bool
	// protocol is the protocol version the client asks for; "" means the
	// logging tests' (protocol).
	protocol string
}

// connect connects a client to srv with protocol, and returns the session
// and the log messages it receives.
func connect(t *testing.T, srv *framework.Server, c client) (*mcp.ClientSession, *logs) {
	t.Helper()
	l := newLogs()
	opts := &mcp.ClientOptions{LoggingMessageHandler: l.handler, Capabilities: &mcp.ClientCapabilities{}}
	if c.roots {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	if c.sampling {
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
		}
	}
	if c.elicitation {
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	if c.progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { c.progress(req.Params) }
	}
	ctx := context.Background()
	var transport mcp.Transport
	if c.http {
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		transport = &mcp.StreamableClientTransport{Endpoint: ts.URL}
	} else {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		transport = ct
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: cmp.Or(c.protocol, protocol)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if c.logLevel != "" {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: c.logLevel}); err != nil {
			t.Fatal(err)
		}
	}
	return cs, l
}

// newServer returns a server with the plugin, after setup added its
// entities.
func newServer(t *testing.T, p *guidance.Plugin, opts *framework.Options, setup func(*framework.Server) error) *framework.Server {
	t.Helper()
	return plugintest.NewServer(t, &plugintest.ServerOptions{Name: "guided", Options: opts, Setup: setup,
		Plugins: []framework.Plugin{p}, Start: true})
}

// call calls a tool and returns the texts of its content.
func call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) (*mcp.CallToolResult, []string) {
	t.Helper()
	if params.Arguments == nil {
		params.Arguments = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	return res, texts(res.Content)
}

func texts(content []mcp.Content) []string {
	var out []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		} else {
			out = append(out, fmt.Sprintf("(%T)", c))
		}
	}
	return out
}

// compose is what the plugin's composer makes of hooks for a client
// with features, in env: the expected content of a delivery.
func compose(env guidance.Env, hooks ...guidance.Hook) string {
	return guidance.Composer{}.Compose(env, hooks, nil).Content
}

// inline returns a hook with inline content.
func inline(tag string, typ guidance.Type, l guidance.Lifecycle, level guidance.Level, content string) guidance.Hook {
	return guidance.Hook{Tag: tag, Type: typ, Lifecycle: l, Level: level, Name: tag, Content: content}
}
