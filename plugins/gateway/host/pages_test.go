package host_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// guardConfig configures a guard: a front whose middleware lets through
// requests that carry its key, marking them.
type guardConfig struct{}

func (guardConfig) Validate() error { return nil }

type guard struct{ front }

func newGuard(guardConfig) *guard { return &guard{front{header: "guard"}} }

func (*guard) Middleware() (func(http.Handler) http.Handler, error) {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer key" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			r.Header.Set("X-Guarded", "yes")
			next.ServeHTTP(w, r)
		})
	}, nil
}

// pagesConfig configures a pages plugin under Path.
type pagesConfig struct{ Path string }

func (pagesConfig) Validate() error { return nil }

// OnHostListener says the pages are served on the MCP listener.
func (pagesConfig) OnHostListener() bool { return true }

// pages is a host.PagesPlugin answering "pages" and whether the guard
// let the request through.
type pages struct{ path string }

var _ host.PagesPlugin = (*pages)(nil)

func newPages(c pagesConfig) *pages                  { return &pages{path: c.Path} }
func (p *pages) Name() string                        { return "pages" + strings.ReplaceAll(p.path, "/", "-") }
func (*pages) Attach(*framework.PluginContext) error { return nil }
func (p *pages) Pages() (string, http.Handler) {
	return p.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "pages "+r.URL.Path+" guarded="+r.Header.Get("X-Guarded"))
	})
}

// TestServePages checks that a PagesPlugin's pages are served on the MCP
// listener under their path behind the front's middleware, while every
// other path is the front's MCP handler; and that without a front, or
// with two plugins at one path, Serve refuses to serve them (and Check
// finds a missing front).
func TestServePages(t *testing.T) {
	guardSpec, pagesSpec := host.Plugin("guard", newGuard), host.Plugin("pages", newPages)
	plugins := func(list ...host.PluginConfig) *host.Config {
		return &host.Config{
			Serve:     host.ServeConfig{HTTP: "127.0.0.1:0"},
			Upstreams: []host.UpstreamConfig{{Upstream: stdio("up")}},
			Plugins:   host.PluginsConfig{List: list},
		}
	}
	guarded := plugins(host.PluginConfig{Spec: guardSpec, Config: guardConfig{}}, host.PluginConfig{Spec: pagesSpec, Config: pagesConfig{"/console"}})
	base, stop := serveHTTP(t, guarded)
	for _, tc := range []struct {
		path, key string
		code      int
		body      string
	}{
		{"/console", "key", 200, "pages /console guarded=yes"},
		{"/console/runs/1", "key", 200, "pages /console/runs/1 guarded=yes"},
		{"/console", "", 401, "no"},
		{"/consoles", "key", 0, ""}, // not under the path: the MCP handler's
	} {
		req, _ := http.NewRequest(http.MethodGet, base+tc.path, nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mcp := resp.Header.Get("X-Front") == "guard"
		if tc.code == 0 && !mcp || tc.code != 0 && (mcp || resp.StatusCode != tc.code || strings.TrimSpace(string(body)) != tc.body) {
			t.Errorf("GET %s: %d %q (front's: %v), want %d %q", tc.path, resp.StatusCode, body, mcp, tc.code, tc.body)
		}
	}
	stop()

	if err := host.Check(guarded); err != nil {
		t.Errorf("Check of pages behind a guard: %v", err)
	}
	for _, tc := range []struct {
		name  string
		cfg   *host.Config
		want  string
		check bool // Check finds it too
	}{
		{"no front", plugins(host.PluginConfig{Spec: pagesSpec, Config: pagesConfig{"/console"}}), ": no listener of its own (addr), and no auth plugin to serve its pages behind", true},
		{"one path twice", plugins(host.PluginConfig{Spec: guardSpec, Config: guardConfig{}}, host.PluginConfig{Spec: pagesSpec, Config: pagesConfig{"/console"}},
			host.PluginConfig{Spec: pagesSpec, Config: pagesConfig{"/console/x"}}), "pages-console-x: its pages' path /console/x overlaps /console", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := host.Serve(context.Background(), tc.cfg, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Serve: %v, want an error holding %q", err, tc.want)
			}
			if err := host.Check(tc.cfg); tc.check && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check: %v, want an error holding %q", err, tc.want)
			}
		})
	}
}

// serveHTTP serves cfg until stop is called, and returns its URL.
func serveHTTP(t *testing.T, cfg *host.Config) (base string, stop func()) {
	t.Helper()
	logs := &addrLog{Handler: slog.DiscardHandler, addrs: map[string]string{}, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- host.Serve(ctx, cfg, host.ServeOptions{Logger: slog.New(logs)}) }()
	select {
	case <-logs.seen:
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	return "http://" + logs.addrs["hookflow gateway: serving streamable HTTP"], func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
}
