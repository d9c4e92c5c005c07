package host_test

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
	"github.com/hookflow/hookflow/plugins/gateway/host"
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

// front is a host.HandlerPlugin that marks every answer with a header.
type front struct{ header string }

var _ host.HandlerPlugin = (*front)(nil)

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
	spec := host.Plugin("front", newFront)
	cfg := &host.Config{
		Serve:     host.ServeConfig{HTTP: "127.0.0.1:0", Health: "/h", Drain: 1 << 62},
		Upstreams: []host.UpstreamConfig{{Upstream: stdio("up")}},
		Plugins:   host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: frontConfig{Header: "yes"}}}},
	}
	logs := &addrLog{Handler: slog.DiscardHandler, addrs: map[string]string{}, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	hurry := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- host.Serve(ctx, cfg, host.ServeOptions{Logger: slog.New(logs), Hurry: hurry}) }()
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
	spec := host.Plugin("front", func(c frontConfig) *front { built++; return newFront(c) })
	for _, tc := range []struct {
		name string
		cfg  host.Config
		want string // "" for valid
	}{
		{"valid", host.Config{Plugins: host.PluginsConfig{Noop: true, List: []host.PluginConfig{{Spec: spec, Config: frontConfig{Header: "x"}}}}}, ""},
		{"invalid plugin", host.Config{Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: frontConfig{}}}}}, "required"},
		{"invalid plugin in an app", host.Config{Apps: []host.AppConfig{{Name: "a", Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: frontConfig{}}}}}}}, "required"},
		{"wrong configuration type", host.Config{Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: "x"}}}}, "configured by a"},
		{"bad app name", host.Config{Apps: []host.AppConfig{{Name: "a/b"}}}, "scope name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := host.Check(&tc.cfg)
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
	cfg := &host.Config{
		Upstreams: []host.UpstreamConfig{{Upstream: stdio("up")}},
		Plugins:   host.PluginsConfig{Noop: true},
	}
	var b bytes.Buffer
	if err := host.Explain(&b, cfg, flows.ToolsCallTool, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "noop") {
		t.Errorf("plan:\n%s\nwant the noop hooks", b.String())
	}
	if err := host.Serve(context.Background(), &host.Config{}, host.ServeOptions{}); err == nil || !strings.Contains(err.Error(), "nothing to serve") {
		t.Errorf("Serve without stdio or http = %v, want nothing to serve", err)
	}
}
