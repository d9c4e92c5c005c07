package command_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
	"github.com/hookflow/hookflow/stages"
)

// fixture is a project directory with scripts, a trust store, and the
// servers a test builds on them.
type fixture struct {
	t     testing.TB
	dir   string
	store string
	audit *records
	log   *records
}

// newFixture makes a project directory of its own. Not t.TempDir: its name
// comes from the test's name, which may hold characters that commands
// refuse.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir, err := os.MkdirTemp("", "cmdhook-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: dir, store: filepath.Join(dir, "trust", "trusted-hooks.json"), audit: &records{}, log: &records{}}
}

// script writes an executable script and returns its path.
func (f *fixture) script(name, body string) string {
	f.t.Helper()
	path := filepath.Join(f.dir, name)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// path returns a path in the project directory.
func (f *fixture) path(name string) string { return filepath.Join(f.dir, name) }

// config returns a configuration of the fixture with settings, short
// timeouts, the fixture's trust store and its audit and log records.
func (f *fixture) config(s settings.Settings) command.Config {
	return command.Config{
		Settings:   s,
		Dir:        f.dir,
		TrustStore: f.store,
		Timeout:    5 * time.Second,
		KillGrace:  200 * time.Millisecond,
		Audit:      f.audit,
		Logger:     slog.New(f.log),
	}
}

// trust trusts every hook of cfg, as "hookflow hooks trust" does.
func (f *fixture) trust(cfg command.Config) {
	f.t.Helper()
	cfg.Logger = nil // the server logs its warnings; trusting is quiet
	infos, err := command.Inspect(cfg)
	if err != nil {
		f.t.Fatalf("Inspect: %v", err)
	}
	err = trust.Update(cfg.TrustStore, func(s *trust.Store) (bool, error) {
		changed := false
		for _, h := range infos {
			changed = s.Trust(h.Identity, h.Command, time.Now()) || changed
		}
		return changed, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// server is a started harness with the plugin and the tools of addTools.
type server struct {
	*plugintest.Harness
	plugin  *command.Plugin
	mu      sync.Mutex
	decided []string // DecidedBy of every tools/call run, in order
}

// serve trusts cfg's hooks and starts a server with them.
func (f *fixture) serve(cfg command.Config) *server {
	f.t.Helper()
	f.trust(cfg)
	return f.serveUntrusted(cfg)
}

// serveUntrusted starts a server with cfg's hooks as the trust store is.
func (f *fixture) serveUntrusted(cfg command.Config) *server {
	f.t.Helper()
	s := &server{plugin: command.New(cfg)}
	s.Harness = plugintest.New(f.t, &plugintest.Options{
		Plugins: []framework.Plugin{s.plugin},
		Setup: func(srv *framework.Server) error {
			if err := addTools(srv); err != nil {
				return err
			}
			return srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "decided", Fn: func(c *flows.Context) error {
				s.mu.Lock()
				s.decided = append(s.decided, c.DecidedBy())
				s.mu.Unlock()
				return nil
			}})
		},
	})
	if err := s.Start(); err != nil {
		f.t.Fatalf("Start: %v", err)
	}
	f.t.Cleanup(func() { s.plugin.Close(context.Background()) })
	return s
}

// lastDecided returns the DecidedBy of the last tools/call run.
func (s *server) lastDecided() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.decided) == 0 {
		return ""
	}
	return s.decided[len(s.decided)-1]
}

// DeleteIn is the input of the delete tool.
type DeleteIn struct {
	Path  string `json:"path"`
	Force bool   `json:"force,omitempty"`
}

// addTools adds "delete" (a destructive tool that only says what it would
// do), a prompt "review" and a resource "file:///notes".
func addTools(srv *framework.Server) error {
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "delete"}, func(_ context.Context, _ *mcp.CallToolRequest, in DeleteIn) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("deleted %s force=%v", in.Path, in.Force)}}}, nil
	})
	if err != nil {
		return err
	}
	err = framework.AddPromptFunc(srv, &mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "code"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "review " + req.Params.Arguments["code"]}}}}, nil
		})
	if err != nil {
		return err
	}
	return framework.AddResourceFunc(srv, &mcp.Resource{URI: "file:///notes", Name: "notes"}, nil,
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "secret notes"}}}, nil
		})
}

// texts returns the text contents of a result, in order.
func texts(res *mcp.CallToolResult) []string {
	var out []string
	if res == nil {
		return nil
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// records is a slog.Handler that keeps every record as text.
type records struct {
	mu   sync.Mutex
	recs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	var b bytes.Buffer
	b.WriteString(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.String())
		return true
	})
	r.mu.Lock()
	r.recs = append(r.recs, b.String())
	r.mu.Unlock()
	return nil
}

// find returns the records that contain every substring.
func (r *records) find(subs ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
next:
	for _, rec := range r.recs {
		for _, s := range subs {
			if !strings.Contains(rec, s) {
				continue next
			}
		}
		out = append(out, rec)
	}
	return out
}

// hooksFor returns settings with one group of one hook for event.
func hooksFor(event, matcher string, h settings.Hook) settings.Settings {
	return settings.Settings{event: {{Matcher: matcher, Hooks: []settings.Hook{h}}}}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// realPath returns the absolute path, symlinks resolved, of the program
// name on PATH.
func realPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	if p, err = filepath.Abs(p); err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}
