package intercept_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

// lockedBuffer is a log destination safe for the plugin's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWarnsOfAHostThatServesTools: the working group decided an
// interceptor server should not also serve tools, prompts or resources.
// The invoker warns at start of a host whose initialize result declares
// any of them, and stays silent for a host that serves interceptors
// alone; either way the host's interceptors run.
func TestWarnsOfAHostThatServesTools(t *testing.T) {
	tests := []struct {
		name  string
		tools bool
		warn  string // the warning's text, "" for none
	}{
		{name: "interceptors alone"},
		{name: "with a tool", tools: true, warn: "intercept: an interceptor host should not also serve tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "guard"}, nil)
			if tt.tools {
				if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (noteArgs, error) {
					return in, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Use(host.New(host.Config{Interceptors: []host.Interceptor{roster()["deny-all"]}})); err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			var logs lockedBuffer
			ch, err := intercept.NewChain(context.Background(), intercept.Config{
				Servers: []intercept.Server{{Name: "guard", Transport: host.InMemory(srv)}},
				Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ch.Close() })
			got := logs.String()
			switch {
			case tt.warn == "" && got != "":
				t.Errorf("logged %q, want nothing", got)
			case tt.warn != "" && (!strings.Contains(got, "level=WARN") || !strings.Contains(got, tt.warn) || !strings.Contains(got, "server=guard")):
				t.Errorf("logged %q, want a warning %q naming the server", got, tt.warn)
			}
			if out := callThroughClient(t, ch, `{"note":"hi"}`); !out.deny {
				t.Errorf("the host's validator did not run: %+v", out)
			}
		})
	}
}
