package host_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// TestAppsAnyOrder mounts two copies of one upstream, into the server and
// an app, the other way round, and into two apps: without prefixes each
// start fails naming the setting that resolves the clash (never "added
// twice"), with a Prefix and a ResourcePrefix on one of them each starts
// and serves both copies.
func TestAppsAnyOrder(t *testing.T) {
	apps := []host.AppConfig{{Name: "x"}, {Name: "y"}}
	for _, tc := range []struct {
		name       string
		appA, appB string
	}{
		{"server and app", "", "x"},
		{"app and server", "x", ""},
		{"two apps", "x", "y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := stdio("a"), stdio("b")
			cfg := &host.Config{Apps: apps, Upstreams: []host.UpstreamConfig{{Upstream: a, App: tc.appA}, {Upstream: b, App: tc.appB}}}
			err := host.Explain(&bytes.Buffer{}, cfg, flows.ToolsCallTool, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)})
			if err == nil || strings.Contains(err.Error(), "added twice") ||
				!strings.Contains(err.Error(), `clashes with upstream`) || !strings.Contains(err.Error(), `tool "echo"`) ||
				!strings.Contains(err.Error(), "set a Prefix on one of them") || !strings.Contains(err.Error(), "set a ResourcePrefix on one of them") {
				t.Fatalf("start with a clash: %v\nwant the clash named, with the settings that resolve it", err)
			}
			b.Prefix, b.ResourcePrefix = "b_", "b+"
			cfg.Upstreams[1].Upstream = b
			var plan bytes.Buffer
			if err := host.Explain(&plan, cfg, flows.ResourcesReadResource, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
				t.Fatalf("start with prefixes: %v", err)
			}
			if !strings.Contains(plan.String(), "b+") {
				t.Errorf("plan:\n%s\nwant b's resources, prefixed", plan.String())
			}
		})
	}
}
