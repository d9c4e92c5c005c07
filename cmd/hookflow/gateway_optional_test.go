package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayOptionalUpstream starts hookflow gateway with an upstream
// marked required: false that does not listen yet: the gateway serves,
// degraded, its readiness report naming the upstream down with the
// cause; once the upstream listens, the gateway connects it and reports
// up.
func TestGatewayOptionalUpstream(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	// A free port, closed again: the optional upstream will listen there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	later := ln.Addr().String()
	ln.Close()
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := fmt.Sprintf(`serve: {http: "127.0.0.1:0", health: /health}
upstreams:
  - {name: here, command: [%q]}
  - {name: later, url: "http://%s/mcp", prefix: later_, resource_prefix: later+, required: false, connect_timeout: 1s}
`, upstream, later)
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, logs, _ := startGateway(t, hookflow, nil, "-config", config)
	code, h := ready(t, "http://"+addr+"/health/ready")
	if code != 200 || h.Status != "degraded" || len(h.Upstreams) != 2 || h.Upstreams[1].Name != "later" ||
		h.Upstreams[1].State == "up" || h.Upstreams[1].Error == "" {
		t.Fatalf("readiness at start: %d %+v, want 200, degraded, with later not up and why", code, h)
	}
	if !strings.Contains(logs.String(), "an optional upstream is unavailable at start") {
		t.Errorf("the log does not say the optional upstream is unavailable:\n%s", logs.String())
	}
	startUpstream(t, upstream, later)
	waitFor(t, "the optional upstream to connect", logs, func() bool {
		_, h := ready(t, "http://"+addr+"/health/ready")
		return h.Status == "up"
	})
}
