package upstream_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// host is an upstream.Host that keeps what it is told.
type host struct {
	mu       sync.Mutex
	messages int
	changed  []string
}

func (h *host) Incoming(context.Context, jsonrpc.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.messages++
}

func (h *host) ListChanged(kind string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.changed = append(h.changed, kind)
}

func (h *host) ResourceUpdated(context.Context, *mcp.ResourceUpdatedNotificationRequest) {}

func (h *host) seen() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.messages, slices.Clone(h.changed)
}

const version = "2025-11-25"

// TestSessionHTTP connects to an HTTP upstream: the host sees its
// messages and hears that its tools changed, and the session knows the
// version it negotiated.
func TestSessionHTTP(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	h := &host{}
	s := &upstream.Session{Relay: upstream.Relay{Log: slog.Default()}}
	d := upstream.Dial{URL: hs.URL, HTTP: http.DefaultTransport, Version: version, Timeout: time.Second}
	if err := s.Connect(context.Background(), d, h); err != nil {
		t.Fatal(err)
	}
	defer s.CS.Close()
	if v := s.Version(); v != version {
		t.Errorf("Version = %q, want %q", v, version)
	}
	if n, _ := h.seen(); n == 0 {
		t.Error("the host saw no message of the upstream")
	}
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for _, changed := h.seen(); !slices.Contains(changed, "tool"); _, changed = h.seen() {
		if time.Now().After(deadline) {
			t.Fatal("the host did not hear that the upstream's tools changed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if s.Broken() || s.Refused() {
		t.Errorf("broken %v, refused %v: want neither", s.Broken(), s.Refused())
	}
}

// TestSessionHostile connects to upstreams that refuse the gateway or
// answer what is not MCP: Connect fails, saying whether the upstream
// refused the gateway's credentials and whether the session is over (a
// refusal fails the session's stream too).
func TestSessionHostile(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	answer := func(code int, body string) string {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(hs.Close)
		return hs.URL
	}
	tests := []struct {
		name                    string
		dial                    upstream.Dial
		wantRefused, wantBroken bool
	}{
		{"401", upstream.Dial{URL: answer(http.StatusUnauthorized, "no")}, true, true},
		{"403", upstream.Dial{URL: answer(http.StatusForbidden, "no")}, true, true},
		{"not JSON-RPC", upstream.Dial{URL: answer(http.StatusOK, "<html>hello</html>")}, false, false},
		{"process says nonsense", upstream.Dial{Command: exec.Command(sh, "-c", "echo 'not json'; echo '{\"jsonrpc\":'")}, false, true},
		{"process exits", upstream.Dial{Command: exec.Command(sh, "-c", "exit 3")}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.dial
			d.HTTP, d.Version, d.Timeout, d.TerminateAfter = http.DefaultTransport, version, time.Second, time.Second
			s := &upstream.Session{Relay: upstream.Relay{Log: slog.New(slog.DiscardHandler)}}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Connect(ctx, d, &host{}); err == nil {
				s.CS.Close()
				t.Fatal("Connect succeeded")
			}
			if s.Refused() != tt.wantRefused || s.Broken() != tt.wantBroken {
				t.Errorf("refused %v, broken %v; want %v, %v", s.Refused(), s.Broken(), tt.wantRefused, tt.wantBroken)
			}
		})
	}
}

// TestSessionCheck checks sessions to an upstream that answers pings and
// to one frozen (it reads pings and never answers): only the frozen one
// is closed.
func TestSessionCheck(t *testing.T) {
	tests := []struct {
		name       string
		frozen     bool
		wantClosed bool
	}{
		{"answers", false, false},
		{"frozen", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			release := make(chan struct{})
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if tt.frozen && strings.Contains(string(body), `"ping"`) {
					select {
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
			}))
			defer hs.Close()
			defer close(release)
			s := &upstream.Session{Relay: upstream.Relay{Log: slog.New(slog.DiscardHandler)}}
			d := upstream.Dial{URL: hs.URL, HTTP: http.DefaultTransport, Version: version, Timeout: time.Second}
			if err := s.Connect(context.Background(), d, &host{}); err != nil {
				t.Fatal(err)
			}
			defer s.CS.Close()
			s.Check(50 * time.Millisecond)
			s.Check(50 * time.Millisecond) // one check at a time: this one is not run
			ended := make(chan struct{})
			go func() { _ = s.CS.Wait(); close(ended) }()
			select {
			case <-ended:
				if !tt.wantClosed {
					t.Fatal("closed a session that answers")
				}
			case <-time.After(500 * time.Millisecond):
				if tt.wantClosed {
					t.Fatal("a frozen session is still open")
				}
			}
		})
	}
}
