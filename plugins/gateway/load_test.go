package gateway_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestLoad: an upstream's sessions are the gateway's own, then one more
// for each client session that called through it (a shared upstream
// opens none per client), and nothing waits in a queue once the calls
// are answered.
func TestLoad(t *testing.T) {
	own, shared := stdio("own"), stdio("shared")
	own.Prefix = "own_"
	shared.Prefix, shared.Shared = "shared_", true
	shared.Command = append(shared.Command, "-noresources")
	srv, gw := serve(t, nil, own, shared)
	for _, tt := range []struct {
		name     string
		clients  int
		sessions []int // own's, shared's
	}{
		{"no client", 0, []int{1, 1}},
		{"two clients", 2, []int{3, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range tt.clients {
				cs := connect(t, srv, nil)
				for _, tool := range []string{"own_echo", "shared_echo"} {
					if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			l := gw.Load()
			want := []gateway.UpstreamLoad{{Upstream: "own", Sessions: tt.sessions[0]}, {Upstream: "shared", Sessions: tt.sessions[1]}}
			if l.Queued != 0 || len(l.Upstreams) != 2 || l.Upstreams[0] != want[0] || l.Upstreams[1] != want[1] {
				t.Errorf("Load() = %+v, want %+v with nothing queued", l, want)
			}
		})
	}
}
