package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

const settings = ".claude/settings.json"

// setup prepares a root with files and a trust store that trusts the
// example's hooks, as "hookflow hooks trust" would after review.
func setup(t *testing.T) (root, store string) {
	t.Helper()
	// A checkout made with umask 002 leaves the scripts (and their
	// directory) group-writable,
	// which the plugin refuses (anyone in the group could change what the
	// server runs); the scripts are the user's, so make them theirs.
	for _, s := range []string{".claude/hooks", ".claude/hooks/protect.py", ".claude/hooks/remind.sh"} {
		if err := os.Chmod(s, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The system's python3 first: a version manager's shim on PATH can
	// take a second to start.
	t.Setenv("PATH", "/usr/bin:/bin:"+os.Getenv("PATH"))
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"notes.txt", "docs/a.md"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store = filepath.Join(t.TempDir(), "trusted-hooks.json")
	return root, store
}

func trustAll(t *testing.T, store string) {
	t.Helper()
	hooks, err := command.Inspect(command.Config{SettingsFile: settings, TrustStore: store})
	if err != nil {
		t.Fatal(err)
	}
	err = trust.Update(store, func(s *trust.Store) (bool, error) {
		for _, h := range hooks {
			s.Trust(h.Identity, h.Command, time.Now())
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func connect(t *testing.T, root, store string) *mcp.ClientSession {
	t.Helper()
	srv, hooks, err := newServer(root, settings, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hooks.Close(context.Background()) })
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, args DeleteIn) (isError bool, texts []string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Content {
		texts = append(texts, c.(*mcp.TextContent).Text)
	}
	return res.IsError, texts
}

// Over MCP: the PreToolUse script blocks the destructive deletes with its
// reason, and the PostToolUse script's context follows a delete it lets
// through.
func TestCommandHooks(t *testing.T) {
	root, store := setup(t)
	trustAll(t, store)
	cs := connect(t, root, store)

	tests := []struct {
		args    DeleteIn
		isError bool
		texts   []string
	}{
		{DeleteIn{Path: "", Recursive: true}, true, []string{"A recursive delete of the whole project is never allowed."}},
		{DeleteIn{Path: "./", Recursive: true}, true, []string{"A recursive delete of the whole project is never allowed."}},
		{DeleteIn{Path: "docs/../../etc"}, true, []string{"'docs/../../etc' climbs out of the project: deletes stay inside it."}},
		{DeleteIn{Path: "notes.txt"}, false, []string{"deleted notes.txt", "Deleted files are gone for good: tell the user exactly what was removed."}},
		{DeleteIn{Path: "docs", Recursive: true}, false, []string{"deleted docs", "Deleted files are gone for good: tell the user exactly what was removed."}},
	}
	for _, tt := range tests {
		isError, texts := call(t, cs, tt.args)
		if isError != tt.isError || !slices.Equal(texts, tt.texts) {
			t.Errorf("delete %+v: isError=%v %q, want isError=%v %q", tt.args, isError, texts, tt.isError, tt.texts)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("left in the root: %v", entries)
	}
}

// Without trust the server does not start, and says how to trust.
func TestUntrusted(t *testing.T) {
	root, store := setup(t)
	_, _, err := newServer(root, settings, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "hookflow hooks trust -store "+store+" ") {
		t.Errorf("Start error %v", err)
	}
}
