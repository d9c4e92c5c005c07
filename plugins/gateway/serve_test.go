package gateway_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// frontConfig configures a front plugin.
type frontConfig struct {
	Header string `yaml:"header"`
}

func (c frontConfig) Validate() error {
	if c.Header == "" {
		return &flows.Error{Code: flows.CodeInvalid, Field: "header", Msg: "required"}
	}
	return nil
}

// front is a gateway.HandlerPlugin that marks every answer with a header.
type front struct{ header string }

var _ gateway.HandlerPlugin = (*front)(nil)

func newFront(c frontConfig) *front                  { return &front{header: c.Header} }
func (*front) Name() string                          { return "front" }
func (*front) Attach(*framework.PluginContext) error { return nil }
func (f *front) Handler(srv *framework.Server, opts *mcp.StreamableHTTPOptions) (http.Handler, error) {
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Front", f.header)
		h.ServeHTTP(w, r)
	}), nil
}

// addrLog records the address a server logs it serves on.
type addrLog struct {
	slog.Handler
	mu    sync.Mutex
	addrs map[string]string // by message
	seen  chan struct{}
}

func (l *addrLog) Handle(ctx context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "addr" {
			l.mu.Lock()
			l.addrs[r.Message] = a.Value.String()
			l.mu.Unlock()
			if r.Message == "hookflow gateway: serving streamable HTTP" {
				close(l.seen)
			}
		}
		return true
	})
	return nil
}

func (l *addrLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *addrLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *addrLog) WithGroup(string) slog.Handler            { return l }

// TestServe serves a Config over HTTP: the HandlerPlugin it lists fronts
// the MCP endpoint (the health endpoints come before it), and a done
// context with Hurry closed shuts it down without waiting out the drain.
func TestServe(t *testing.T) {
	spec := gateway.Plugin("front", newFront)
	cfg := &gateway.Config{
		Serve:     gateway.ServeConfig{HTTP: "127.0.0.1:0", Health: "/h", Drain: 1 << 62},
		Upstreams: []gateway.UpstreamConfig{{Upstream: stdio("up")}},
		Plugins:   gateway.PluginsConfig{List: []gateway.PluginConfig{{Spec: spec, Config: frontConfig{Header: "yes"}}}},
	}
	logs := &addrLog{Handler: slog.DiscardHandler, addrs: map[string]string{}, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	hurry := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- gateway.Serve(ctx, cfg, gateway.ServeOptions{Logger: slog.New(logs), Hurry: hurry}) }()
	select {
	case <-logs.seen:
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	}
	logs.mu.Lock()
	base := "http://" + logs.addrs["hookflow gateway: serving streamable HTTP"]
	logs.mu.Unlock()
	for _, tc := range []struct {
		path  string
		front string
	}{
		{"/mcp", "yes"},
		{"/h/live", ""},
	} {
		// A POST that is no MCP message gets a quick refusal.
		resp, err := http.Post(base+tc.path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Front"); got != tc.front {
			t.Errorf("POST %s: X-Front %q, want %q", tc.path, got, tc.front)
		}
	}
	close(hurry)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after the context is done: %v", err)
	}
}

// TestCheck checks a Config without serving it: the plugins' Validate
// runs, none is built, and the apps' names are checked.
func TestCheck(t *testing.T) {
	built := 0
	spec := gateway.Plugin("front", func(c frontConfig) *front { built++; return newFront(c) })
	for _, tc := range []struct {
		name string
		cfg  gateway.Config
		want string // "" for valid
	}{
		{"valid", gateway.Config{Plugins: gateway.PluginsConfig{Noop: true, List: []gateway.PluginConfig{{Spec: spec, Config: frontConfig{Header: "x"}}}}}, ""},
		{"invalid plugin", gateway.Config{Plugins: gateway.PluginsConfig{List: []gateway.PluginConfig{{Spec: spec, Config: frontConfig{}}}}}, "required"},
		{"invalid plugin in an app", gateway.Config{Apps: []gateway.AppConfig{{Name: "a", Plugins: gateway.PluginsConfig{List: []gateway.PluginConfig{{Spec: spec, Config: frontConfig{}}}}}}}, "required"},
		{"wrong configuration type", gateway.Config{Plugins: gateway.PluginsConfig{List: []gateway.PluginConfig{{Spec: spec, Config: "x"}}}}, "configured by a"},
		{"bad app name", gateway.Config{Apps: []gateway.AppConfig{{Name: "a/b"}}}, "scope name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gateway.Check(&tc.cfg)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check = %v, want %q", err, tc.want)
			}
		})
	}
	if built != 0 {
		t.Errorf("Check built %d plugins, want none", built)
	}
}

// TestExplain prints the plan of a flow for each mounted entity, with the
// listed plugins' and noop's hooks.
func TestExplain(t *testing.T) {
	cfg := &gateway.Config{
		Upstreams: []gateway.UpstreamConfig{{Upstream: stdio("up")}},
		Plugins:   gateway.PluginsConfig{Noop: true},
	}
	var b bytes.Buffer
	if err := gateway.Explain(&b, cfg, flows.ToolsCallTool, gateway.ServeOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "noop") {
		t.Errorf("plan:\n%s\nwant the noop hooks", b.String())
	}
	if err := gateway.Serve(context.Background(), &gateway.Config{}, gateway.ServeOptions{}); err == nil || !strings.Contains(err.Error(), "nothing to serve") {
		t.Errorf("Serve without stdio or http = %v, want nothing to serve", err)
	}
}
