package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hookflow/hookflow/plugins/gateway/host"
	"github.com/hookflow/hookflow/plugins/otel"
)

// TestGatewayMetrics runs the gateway binary with the otel plugin's
// prometheus exporter and serve.metrics on the health listener, makes
// known calls through it (two that succeed, one a policy rule blocks,
// one whose tool fails, one the upstream answers with a protocol error)
// and scrapes /metrics with the Prometheus text parser: each tool's
// duration histogram counts its calls under its upstream and outcome,
// the blocked counter names the deciding hook, and the upstream's
// gauges say it is up with a session open.
func TestGatewayMetrics(t *testing.T) {
	hookflow, upstream := build(t, "cmd/hookflow"), build(t, "plugins/gateway/internal/testupstream")
	upURL, _ := startUpstream(t, upstream, "127.0.0.1:0")
	addr := freeAddr(t)
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := `serve: {http: '` + addr + `', health_addr: '127.0.0.1:0', metrics: /metrics}
upstreams:
  - {name: up, url: '` + upURL + `', allow_tools: [echo, fail, pid, reject]}
plugins:
  policy:
    rules:
      - {name: no-pid, when: 'entity.name == "pid"', allow: 'false', message: pid is not for you}
  otel: {exporter: prometheus, service_name: gw}
`
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	health, logs, _ := startGateway(t, hookflow, nil, "-config", config)
	waitFor(t, "the metrics served", logs, func() bool { return strings.Contains(logs.String(), "serving metrics") })

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		tool            string
		isError, failed bool
	}{{"echo", false, false}, {"echo", false, false}, {"pid", true, false}, {"fail", true, false}, {"reject", false, true}} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{}})
		if (err != nil) != c.failed || (err == nil && res.IsError != c.isError) {
			t.Fatalf("calling %s: %v, %v; want isError %v, a protocol error %v", c.tool, res, err, c.isError, c.failed)
		}
	}

	post, err := http.Post("http://"+health+"/metrics", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	if post.StatusCode != http.StatusMethodNotAllowed || post.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /metrics: %s, Allow %q; want 405 with Allow: GET, HEAD", post.Status, post.Header.Get("Allow"))
	}
	res, err := http.Get("http://" + health + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", res.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	tests := []struct {
		family string
		labels map[string]string
		want   float64 // a histogram's sample count, else the value
	}{
		{"mcp_server_operation_duration_seconds", map[string]string{"gen_ai_tool_name": "echo", "hookflow_upstream": "up", "hookflow_outcome": "ok"}, 2},
		{"mcp_server_operation_duration_seconds", map[string]string{"gen_ai_tool_name": "pid", "hookflow_upstream": "up", "hookflow_outcome": "blocked"}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"gen_ai_tool_name": "fail", "hookflow_upstream": "up", "hookflow_outcome": "failed", "error_type": "tool_error"}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"gen_ai_tool_name": "reject", "hookflow_upstream": "up", "hookflow_outcome": "failed", "error_type": "-32042"}, 1},
		{"hookflow_run_blocked_total", map[string]string{"hookflow_flow": "tools:call-tool", "hookflow_decided_by": "hookflow-gateway/plugin:policy/tools:call-tool/beforeValidation/rules"}, 1},
		{"hookflow_gateway_upstream_up", map[string]string{"hookflow_upstream": "up", "hookflow_upstream_state": "up"}, 1},
		// The gateway's own session and the client session's.
		{"hookflow_gateway_upstream_sessions", map[string]string{"hookflow_upstream": "up"}, 2},
		{"hookflow_gateway_upstream_reconnects_total", map[string]string{"hookflow_upstream": "up"}, 0},
		{"hookflow_gateway_client_queued", nil, 0},
		{"hookflow_gateway_sessions", nil, 1},
	}
	for _, tt := range tests {
		got, err := sample(fams, tt.family, tt.labels)
		if err != nil {
			t.Errorf("%v", err)
		} else if got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.family, tt.labels, got, tt.want)
		}
	}
	// The rule's hook ran for every call; it blocked one.
	for outcome, want := range map[string]float64{"ok": 4, "abort": 1} {
		got, err := sample(fams, "hookflow_hook_duration_seconds", map[string]string{
			"hookflow_hook_id": "hookflow-gateway/plugin:policy/tools:call-tool/beforeValidation/rules", "hookflow_outcome": outcome})
		if err != nil || got != want {
			t.Errorf("the policy hook's durations with outcome %s count %v (%v), want %v", outcome, got, err, want)
		}
	}
}

// sample returns the value of the one series of family whose labels
// include labels: a histogram's sample count, a counter's or a gauge's
// value.
func sample(fams map[string]*dto.MetricFamily, family string, labels map[string]string) (float64, error) {
	f, ok := fams[family]
	if !ok {
		var names []string
		for n := range fams {
			names = append(names, n)
		}
		return 0, fmt.Errorf("no family %s among %v", family, names)
	}
	var found []*dto.Metric
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			match = match && have[k] == v
		}
		if match {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%s has %d series with %v, want 1: %v", family, len(found), labels, f.GetMetric())
	}
	m := found[0]
	switch f.GetType() {
	case dto.MetricType_HISTOGRAM:
		return float64(m.GetHistogram().GetSampleCount()), nil
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), nil
	}
	return m.GetGauge().GetValue(), nil
}

// The otel plugin is what serve.metrics serves: a method of the wrong
// shape fails to compile here rather than leaving the key without a
// plugin.
var _ host.MetricsPlugin = (*otel.Plugin)(nil)
