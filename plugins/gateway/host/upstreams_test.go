package host_test

import (
	"bytes"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// upsConfig is an UpstreamAware configuration: it keeps the prefixes it
// is handed, and Validate fails when it wants them and has none.
type upsConfig struct {
	Name      string `yaml:"name"`
	Want      bool   `yaml:"want"`
	prefixes  map[string]string
	validated *[]map[string]string
}

var _ host.UpstreamAware[upsConfig] = upsConfig{}

func (c upsConfig) WithUpstreams(prefixes map[string]string) upsConfig {
	c.prefixes = maps.Clone(prefixes)
	// A plugin may do what it likes with its map: the next one's is its
	// own.
	clear(prefixes)
	return c
}

func (c upsConfig) Validate() error {
	if c.validated != nil {
		*c.validated = append(*c.validated, c.prefixes)
	}
	if c.Want && len(c.prefixes) == 0 {
		return &flows.Error{Code: flows.CodeInvalid, Field: "want", Msg: "no upstreams handed"}
	}
	return nil
}

// upsPlugin is the plugin an upsConfig builds.
type upsPlugin struct{ name string }

func (p *upsPlugin) Name() string                          { return p.name }
func (p *upsPlugin) Attach(*framework.PluginContext) error { return nil }

// TestUpstreamAware builds plugins whose configuration is UpstreamAware,
// of the server and of an app: each gets every upstream of the Config,
// by name, with its prefix, in a map of its own; a configuration that is
// not UpstreamAware, and one of the wrong type, are left as they are.
func TestUpstreamAware(t *testing.T) {
	var mu sync.Mutex
	built := map[string]map[string]string{}
	spec := host.Plugin("ups", func(c upsConfig) *upsPlugin {
		mu.Lock()
		defer mu.Unlock()
		built[c.Name] = c.prefixes
		return &upsPlugin{name: c.Name}
	})
	up, app := stdio("up"), stdio("other")
	up.Prefix, app.ResourcePrefix = "up_", "other+"
	cfg := &host.Config{
		Upstreams: []host.UpstreamConfig{{Upstream: up}, {Upstream: app, App: "a"}},
		Plugins: host.PluginsConfig{List: []host.PluginConfig{
			{Spec: spec, Config: upsConfig{Name: "first", Want: true}},
			{Spec: spec, Config: upsConfig{Name: "second", Want: true}},
			{Spec: host.Plugin("front", newFront), Config: frontConfig{Header: "x"}},
		}},
		Apps: []host.AppConfig{{Name: "a", Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: upsConfig{Name: "in-app", Want: true}}}}}},
	}
	var b bytes.Buffer
	if err := host.Explain(&b, cfg, flows.ToolsCallTool, host.ServeOptions{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"up": "up_", "other": ""}
	for _, name := range []string{"first", "second", "in-app"} {
		if got := built[name]; !maps.Equal(got, want) {
			t.Errorf("plugin %s was built with upstreams %v, want %v", name, got, want)
		}
	}

	// Check hands them to Validate too, and builds nothing.
	var validated []map[string]string
	checked := &host.Config{
		Upstreams: cfg.Upstreams,
		Plugins:   host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: upsConfig{Name: "checked", Want: true, validated: &validated}}}},
	}
	if err := host.Check(checked); err != nil {
		t.Errorf("Check: %v", err)
	}
	if len(validated) != 1 || validated[0]["up"] != "up_" {
		t.Errorf("Check validated with upstreams %v, want up: up_", validated)
	}
	for _, tc := range []struct {
		name string
		cfg  host.Config
		want string
	}{
		{"no upstreams: an empty map", host.Config{Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: upsConfig{Name: "none", Want: true}}}}}, "no upstreams handed"},
		{"hostile: a configuration of the wrong type is reported, not handed", host.Config{Upstreams: cfg.Upstreams, Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec, Config: frontConfig{Header: "x"}}}}}, "configured by a"},
		{"hostile: a nil configuration", host.Config{Upstreams: cfg.Upstreams, Plugins: host.PluginsConfig{List: []host.PluginConfig{{Spec: spec}}}}, "configured by a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := host.Check(&tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}
