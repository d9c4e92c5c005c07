package host

import (
	"cmp"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/internal/yamlconf"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// LoadOptions are how a configuration file is read.
type LoadOptions struct {
	// Plugins are the plugins the file may configure under plugins (and
	// under an app's plugins), each by its spec's name; noop is always
	// there.
	Plugins []PluginSpec
	// Getenv reads the environment variables that the file's env-tagged
	// keys name (an upstream's token_env, its oauth's
	// client_secret_env, the auth plugin's
	// oauth.introspection.client_secret_env); nil is os.Getenv. The
	// plugins read their other *_env keys themselves.
	Getenv func(string) string
}

// ParseConfig decodes data, the contents of file, into the Config it
// describes and checks it. Every error is reported at once, each at
// file:line:col, in the order of the file: unknown keys (with a "did you
// mean"), values of the wrong kind, and what each plugin's Validate
// reports, at the key it names; deprecated keys are no error, but
// [Config.Warnings]. Every path is relative to file's
// directory: an upstream's dir, and a plugin setting's tagged
// path:"relative", are resolved against it, and a command without a dir
// runs in it, so that its relative program and arguments are relative to
// the file too. Nothing on the machine is looked at: see [ReadConfig].
func ParseConfig(file string, data []byte, opts LoadOptions) (*Config, error) {
	return load(file, data, opts, false)
}

// ReadConfig reads the configuration file at path (refusing one over a
// MiB) and parses it as [ParseConfig] does, and also checks what its
// settings name on this machine, without starting or writing anything:
// the upstreams' programs and directories, and what the plugins' Validate
// checks there.
func ReadConfig(path string, opts LoadOptions) (*Config, error) {
	data, err := yamlconf.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return load(path, data, opts, true)
}

// load decodes data, the contents of file, through yamlconf: the host's
// own keys by their tags into a fileConfig, each plugin's section into its
// spec's configuration.
func load(file string, data []byte, opts LoadOptions, host bool) (*Config, error) {
	d := &yamlconf.Decoder{File: file, Getenv: opts.Getenv, Host: host,
		Hooks: []yamlconf.Hook{pluginsHook(opts.Plugins), yamlconf.HookFor(decodeLevel)}}
	f := &fileConfig{Config: Config{Name: defaultName, Serve: ServeConfig{SessionTimeout: DefaultSessionTimeout}}, dir: filepath.Dir(file)}
	if err := d.Document(data, "the configuration", f); err != nil {
		return nil, err
	}
	cfg := f.config()
	cfg.Warnings = d.Warnings()
	return cfg, nil
}

// fileConfig is a Config as the file gives it: its upstreams with the keys
// that say what an Upstream's fields say in other words. Its Validate and
// CheckHost (validate.go) are the checks of the whole file.
type fileConfig struct {
	Config    `yaml:",inline"`
	Upstreams []upstreamFile `yaml:"upstreams"`
	// dir is the file's directory, where a command without a dir runs.
	dir string
}

// upstreamFile is an upstream as the file gives it.
type upstreamFile struct {
	UpstreamConfig `yaml:",inline"`
	// Required false is Upstream.Optional; nil is true.
	Required *bool `yaml:"required"`
	// IdleTimeout is Upstream.IdleTimeout, with 0s for never; nil is the
	// default.
	IdleTimeout *time.Duration `yaml:"idle_timeout"`
	// OAuth is the OAuth client that makes Upstream.TokenSource.
	OAuth *oauthConfig `yaml:"oauth"`

	_ struct{} `yaml:"http_transport" removed:"the gateway reaches every url upstream with hookflow's streamable HTTP client"`
}

// config returns the Config f describes.
func (f *fileConfig) config() *Config {
	cfg := f.Config
	cfg.Upstreams = nil
	for _, u := range f.Upstreams {
		c := u.UpstreamConfig
		if u.Required != nil {
			c.Optional = !*u.Required
		}
		if u.IdleTimeout != nil {
			c.IdleTimeout = cmp.Or(*u.IdleTimeout, -1) // 0s: never
		}
		if u.OAuth != nil {
			c.TokenSource = u.OAuth.tokenSource(c.URL, cmp.Or(c.ConnectTimeout, gateway.DefaultConnectTimeout))
		}
		if c.Dir == "" && len(c.Command) > 0 {
			// The command runs in the file's directory, so that its
			// relative program and arguments are relative to the file.
			c.Dir = f.dir
		}
		cfg.Upstreams = append(cfg.Upstreams, c)
	}
	return &cfg
}

// pluginsHook decodes a PluginsConfig: a mapping of the names of specs
// (and noop) to their sections.
func pluginsHook(specs []PluginSpec) yamlconf.Hook {
	names := []string{"noop"}
	for _, s := range specs {
		names = append(names, s.Name())
	}
	return yamlconf.HookFor(func(d *yamlconf.Decoder, n *yaml.Node, path string, p *PluginsConfig) {
		d.Entries(n, path, "plugins", names, func(k, v *yaml.Node) {
			at := yamlconf.Join(path, k.Value)
			i := slices.IndexFunc(specs, func(s PluginSpec) bool { return s.Name() == k.Value })
			if i < 0 {
				d.Value(v, at, &p.Noop)
				return
			}
			cfg := reflect.New(specs[i].Config())
			if d.Section(v, at, k.Value, cfg.Interface()) {
				p.List = append(p.List, PluginConfig{Spec: specs[i], Config: cfg.Elem().Interface()})
			}
		})
	})
}

// decodeLevel reads a log level: debug, info, warn or error.
func decodeLevel(d *yamlconf.Decoder, n *yaml.Node, path string, l *slog.Level) {
	var s string
	if !d.Value(n, path, &s) {
		return
	}
	levels := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
	lv, ok := levels[s]
	if !ok {
		d.Errorf(n, path, "want debug, info, warn or error, got %q%s", s, yamlconf.DidYouMean(s, []string{"debug", "error", "info", "warn"}))
	}
	*l = lv
}

// upstreamAt is the path of the i'th upstream in the file.
func upstreamAt(i int) string { return fmt.Sprintf("upstreams[%d]", i) }
