package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestOptionalUpstream starts a gateway whose optional upstream's program
// is not there yet: the server starts degraded, serving the required
// upstream, Health names the optional one down with the cause and a call
// to it is unavailable; once the program is there, the gateway connects
// it in the background and mounts its tools.
func TestOptionalUpstream(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "later")
	opt := stdio("opt")
	opt.Command, opt.Prefix, opt.ResourcePrefix, opt.Optional = []string{prog}, "opt_", "opt+", true
	srv, gw := serve(t, nil, stdio("req"), opt)
	cs := connect(t, srv, nil)
	if got, _ := call(t, cs, "echo", map[string]any{"text": "hi"}); !strings.Contains(got, "hi") {
		t.Errorf("the required upstream's echo: %q", got)
	}
	h := gw.Health()
	if h[0].State != gateway.StateUp || h[1].State == gateway.StateUp || h[1].Err == nil || !strings.Contains(h[1].Err.Error(), "later") {
		t.Errorf("health at start: %+v, want req up and opt not, with the cause", h)
	}
	if _, ok := srv.Tool("opt_echo"); ok {
		t.Errorf("opt_echo is mounted before its upstream answers")
	}
	if err := os.Symlink(upstreamBin, prog); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the optional upstream to connect and mount its tools", func() bool {
		_, ok := srv.Tool("opt_echo")
		return ok && gw.Health()[1].State == gateway.StateUp
	})
	if got, isErr := call(t, cs, "opt_echo", map[string]any{"text": "late"}); isErr || !strings.Contains(got, "late") {
		t.Errorf("opt_echo once up: %q (error %v)", got, isErr)
	}
}

// TestRequiredUpstream checks that an upstream that is not Optional still
// fails the server's Start when it cannot be reached.
func TestRequiredUpstream(t *testing.T) {
	req := stdio("req")
	req.Command = []string{filepath.Join(t.TempDir(), "missing")}
	srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{stdio("ok"), req}})
	check(t, srv.Use(gw))
	defer gw.Close()
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), `upstream "req"`) {
		t.Errorf("Start: %v, want upstream \"req\" named", err)
	}
}
