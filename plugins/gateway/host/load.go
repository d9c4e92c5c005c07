package host

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/hostcheck"
	"github.com/hookflow/hookflow/internal/yamlconf"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/gateway/internal/filter"
)

// decoder decodes a YAML document into a Config, collecting every
// error with its position.
type decoder struct {
	*yamlconf.Decoder
	// plugins are the plugins the file may configure, besides the ones
	// decoded here.
	specs []PluginSpec
	// appAt is where each upstream's app is set, for errors about it.
	appAt []*yaml.Node
}

// LoadOptions are how a configuration file is read.
type LoadOptions struct {
	// Plugins are the plugins the file may configure under plugins (and
	// under an app's plugins), each by its spec's name; noop is always
	// there.
	Plugins []PluginSpec
	// Getenv reads the environment variables that the gateway's own *_env
	// keys name (an upstream's token_env, its oauth's
	// client_secret_env); nil is os.Getenv. The plugins read theirs
	// themselves.
	Getenv func(string) string
}

// ParseConfig decodes data, the contents of file, into the Config it
// describes and checks it. Every error is reported at once, each at
// file:line:col, in the order of the file: unknown keys (with a "did you
// mean"), values of the wrong kind, and what each plugin's Validate
// reports, at the key it names. Every path is relative to file's
// directory: an upstream's dir, and a plugin setting's tagged
// path:"relative", are resolved against it, and a command without a dir
// runs in it, so that its relative program and arguments are relative to
// the file too. Nothing on the machine is looked at: see [ReadConfig].
func ParseConfig(file string, data []byte, opts LoadOptions) (*Config, error) {
	return newDecoder(file, opts, false).decode(data)
}

// ReadConfig reads the configuration file at path and parses it as
// [ParseConfig] does, and also checks what its settings name on this
// machine, without starting or writing anything: the upstreams' programs
// and directories, and what the plugins' Validate checks there.
func ReadConfig(path string, opts LoadOptions) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return newDecoder(path, opts, true).decode(data)
}

func newDecoder(file string, opts LoadOptions, host bool) *decoder {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return &decoder{Decoder: &yamlconf.Decoder{File: file, Getenv: getenv, Host: host}, specs: opts.Plugins}
}

// decode decodes data, the contents of d.File.
func (d *decoder) decode(data []byte) (*Config, error) {
	file := d.File
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlconf.SyntaxError(file, err)
	}
	cfg := &Config{Name: defaultName, Serve: ServeConfig{SessionTimeout: DefaultSessionTimeout}}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty configuration: it needs at least upstreams", file)
	}
	root := doc.Content[0]
	d.Mapping(root, "the configuration", map[string]func(*yaml.Node){
		"name":      func(n *yaml.Node) { cfg.Name = d.Str(n) },
		"log":       func(n *yaml.Node) { d.log(n, &cfg.Log) },
		"serve":     func(n *yaml.Node) { d.serve(n, &cfg.Serve) },
		"upstreams": func(n *yaml.Node) { cfg.Upstreams = d.upstreams(n) },
		"plugins":   func(n *yaml.Node) { cfg.Plugins = d.plugins(n) },
		"apps": func(n *yaml.Node) {
			for _, item := range d.Seq(n) {
				var a AppConfig
				d.Mapping(item, "an app", map[string]func(*yaml.Node){
					"name":    func(n *yaml.Node) { a.Name = d.Str(n) },
					"plugins": func(n *yaml.Node) { a.Plugins = d.plugins(n) },
				})
				if a.Name == "" {
					d.Errorf(item, "an app needs a name")
				} else if slices.ContainsFunc(cfg.Apps, func(o AppConfig) bool { return o.Name == a.Name }) {
					d.Errorf(item, "two apps are named %q", a.Name)
				}
				cfg.Apps = append(cfg.Apps, a)
			}
		},
	})
	d.check(root, cfg)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// check checks what no single value shows: an upstream mounted into an
// app the file does not define, a configuration without upstreams.
func (d *decoder) check(root *yaml.Node, cfg *Config) {
	if len(cfg.Upstreams) == 0 {
		d.Errorf(root, "no upstream: add at least one under upstreams")
	}
	var apps []string
	for _, a := range cfg.Apps {
		apps = append(apps, a.Name)
	}
	for i, u := range cfg.Upstreams {
		if u.App != "" && !slices.Contains(apps, u.App) {
			d.Errorf(d.appAt[i], "upstream %q is mounted into app %q, which apps does not define%s", u.Name, u.App, yamlconf.DidYouMean(u.App, apps))
		}
	}
}

func (d *decoder) serve(n *yaml.Node, s *ServeConfig) {
	at := map[string]*yaml.Node{"": n}
	d.Mapping(n, "serve", map[string]func(*yaml.Node){
		"stdio":           func(n *yaml.Node) { s.Stdio = d.Bool(n) },
		"http":            func(n *yaml.Node) { s.HTTP = d.Str(n) },
		"stateless":       func(n *yaml.Node) { s.Stateless = d.Bool(n) },
		"health":          func(n *yaml.Node) { s.Health, at["health"] = d.Str(n), n },
		"drain":           func(n *yaml.Node) { s.Drain = d.Duration(n) },
		"session_timeout": func(n *yaml.Node) { s.SessionTimeout = d.Duration(n) },
		"health_addr":     func(n *yaml.Node) { s.HealthAddr, at["health_addr"] = d.Str(n), n },
	})
	for _, err := range leaves(s.Validate()) {
		var fe *flows.Error
		if errors.As(err, &fe) {
			d.Errorf(cmp.Or(at[fe.Field], n), "%s", fe.Msg)
		}
	}
}

// leaves returns the errors err joins; err alone if it joins none.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// Validate reports what is wrong with s by itself: nil, or the
// errors.Join of *flows.Error values whose Field is the key they are
// about ("" for serve itself). What needs the rest of the Config (the
// health endpoints need an HTTP listener) is checked by [Check] and
// [Serve].
func (s ServeConfig) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Health != "" && (!strings.HasPrefix(s.Health, "/") || strings.ContainsAny(s.Health, "?# \t\r\n")) {
		add("health", "want a path such as /health, got %q", s.Health)
	}
	if s.HealthAddr != "" {
		_, port, err := net.SplitHostPort(s.HealthAddr)
		if n, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || (n == 0 && port != "0") {
			add("health_addr", "want an address such as 127.0.0.1:9090, got %q", s.HealthAddr)
		}
	}
	if s.Drain < 0 {
		add("drain", "want a duration such as 5s, got %v", s.Drain)
	}
	if s.SessionTimeout < 0 {
		add("session_timeout", "want a duration such as 30m, got %v", s.SessionTimeout)
	}
	switch {
	case s.Stdio && s.HTTP != "":
		add("", "serve stdio or http, not both")
	case s.Stdio && s.Stateless:
		add("", "stateless is for http: over stdio there are no HTTP sessions to do without")
	case s.Stdio && s.Drain > 0:
		add("", "drain is for http: over stdio there is nothing to drain")
	}
	return errors.Join(errs...)
}

// checkListeners checks what serve's keys and the flags that override
// them set together: the health endpoints need an HTTP listener.
func (s ServeConfig) checkListeners() error {
	switch {
	case s.Health == "" && s.HealthAddr == "":
		return nil
	case s.HealthAddr == "" && s.Stdio:
		return errors.New("serve.health needs an HTTP listener, and stdio serves none: set serve.health_addr (-health-addr addr) to serve the health endpoints on a listener of their own next to stdio, or leave serve.health out (-health '') to serve none")
	case s.HealthAddr != "" && s.HealthAddr == s.HTTP && !strings.HasSuffix(s.HTTP, ":0"):
		return fmt.Errorf("serve.health_addr is serve.http's address %s: leave it out to serve health on the MCP listener", s.HTTP)
	}
	return nil
}

func (d *decoder) upstreams(n *yaml.Node) []UpstreamConfig {
	var out []UpstreamConfig
	for _, item := range d.Seq(n) {
		var u UpstreamConfig
		var oauth *oauthConfig
		// token is the key (token or token_env) that gave the token;
		// authHeader the Authorization key under headers.
		var token, authHeader, command, dir, app *yaml.Node
		setToken := func(n *yaml.Node, v string) {
			if token != nil {
				d.Errorf(yamlconf.KeyOf(item, n), "%s and %s both give the upstream's bearer token: keep one", token.Value, yamlconf.KeyOf(item, n).Value)
				return
			}
			u.Token, token = v, yamlconf.KeyOf(item, n)
		}
		d.Mapping(item, "an upstream", map[string]func(*yaml.Node){
			"name":             func(n *yaml.Node) { u.Name = d.Str(n) },
			"command":          func(n *yaml.Node) { u.Command, command = d.Strs(n), n },
			"env":              func(n *yaml.Node) { u.Env = d.environ(n) },
			"inherit_env":      func(n *yaml.Node) { u.InheritEnv = d.envNames(n) },
			"dir":              func(n *yaml.Node) { u.Dir, dir = d.Str(n), n },
			"url":              func(n *yaml.Node) { u.URL = d.url(n) },
			"token":            func(n *yaml.Node) { setToken(n, d.Str(n)) },
			"http_transport":   func(n *yaml.Node) { d.removedHTTPTransport(yamlconf.KeyOf(item, n)) },
			"token_env":        func(n *yaml.Node) { setToken(n, d.Env(n)) },
			"oauth":            func(n *yaml.Node) { oauth = d.oauth(n) },
			"headers":          func(n *yaml.Node) { u.Header, authHeader = d.headers(n) },
			"prefix":           func(n *yaml.Node) { u.Prefix = d.Str(n) },
			"resource_prefix":  func(n *yaml.Node) { u.ResourcePrefix = d.checked(n, filter.ResourcePrefix) },
			"allow_tools":      func(n *yaml.Node) { u.AllowTools = d.patterns(n) },
			"deny_tools":       func(n *yaml.Node) { u.DenyTools = d.patterns(n) },
			"required":         func(n *yaml.Node) { u.Optional = !d.Bool(n) },
			"idle_timeout":     func(n *yaml.Node) { u.IdleTimeout = cmp.Or(d.Duration(n), -1) }, // 0s: never
			"shared":           func(n *yaml.Node) { u.Shared = d.Bool(n) },
			"protocol_version": func(n *yaml.Node) { u.ProtocolVersion = d.protocolVersion(n) },
			"timeout":          func(n *yaml.Node) { u.Timeout = d.Duration(n) },
			"connect_timeout":  func(n *yaml.Node) { u.ConnectTimeout = d.Duration(n) },
			"max_sessions":     func(n *yaml.Node) { u.MaxSessions = d.Int(n) },
			"app":              func(n *yaml.Node) { u.App, app = d.Str(n), n },

			// Progress restarts a request's timeout.
			"reset_timeout_on_progress": func(n *yaml.Node) { u.ResetTimeoutOnProgress = d.Bool(n) },
			"max_total_timeout":         func(n *yaml.Node) { u.MaxTotalTimeout = d.Duration(n) },
		})
		d.checkUpstream(item, &u, out, upstreamKeys{token: token, authHeader: authHeader, oauth: oauth})
		if u.Dir != "" && !filepath.IsAbs(u.Dir) {
			u.Dir = filepath.Join(filepath.Dir(d.File), u.Dir)
		} else if u.Dir == "" && len(u.Command) > 0 {
			// The command runs in the file's directory, so that its
			// relative program and arguments are relative to the file.
			u.Dir = filepath.Dir(d.File)
		}
		if d.Host {
			d.checkProgram(fmt.Sprintf("upstream %q", u.Name), u.Command, u.Dir, command, dir)
		}
		out = append(out, u)
		d.appAt = append(d.appAt, app)
	}
	return out
}

// upstreamKeys are the keys of an upstream that checkUpstream checks
// together: token is the key (token or token_env) that gave the token,
// authHeader the Authorization key under headers.
type upstreamKeys struct {
	token, authHeader *yaml.Node
	oauth             *oauthConfig
}

// checkUpstream checks what the keys of an upstream, at item, say
// together, given the upstreams before it; with oauth it sets u's token
// source.
func (d *decoder) checkUpstream(item *yaml.Node, u *UpstreamConfig, out []UpstreamConfig, k upstreamKeys) {
	token, authHeader, oauth := k.token, k.authHeader, k.oauth
	switch {
	case u.Name == "":
		d.Errorf(item, "an upstream needs a name")
	case slices.ContainsFunc(out, func(o UpstreamConfig) bool { return o.Name == u.Name }):
		d.Errorf(item, "two upstreams are named %q", u.Name)
	case len(u.Command) == 0 && u.URL == "":
		d.Errorf(item, "upstream %q needs a command or a url", u.Name)
	case len(u.Command) > 0 && u.URL != "":
		d.Errorf(item, "upstream %q has a command and a url: give one", u.Name)
	case len(u.Command) > 0 && (u.Token != "" || len(u.Header) > 0):
		d.Errorf(item, "upstream %q: token and headers are for url upstreams", u.Name)
	case len(u.Command) > 0 && oauth != nil:
		d.Errorf(item, "upstream %q: oauth is for url upstreams", u.Name)
	case token != nil && oauth != nil:
		d.Errorf(item, "upstream %q: give token (or token_env) or oauth, not both", u.Name)
	case authHeader != nil && token != nil:
		d.Errorf(authHeader, "upstream %q: an Authorization header and %s both authenticate to the upstream: give one", u.Name, token.Value)
	case authHeader != nil && oauth != nil:
		d.Errorf(authHeader, "upstream %q: an Authorization header and oauth both authenticate to the upstream: give one", u.Name)
	case oauth != nil:
		u.TokenSource = oauth.tokenSource(u.URL, cmp.Or(u.ConnectTimeout, gateway.DefaultConnectTimeout))
	}
}

// checkProgram checks that the directory of an upstream's command (who)
// exists and its program is found, where starting it would look:
// commandNode and dirNode are where they are set.
func (d *decoder) checkProgram(who string, command []string, dir string, commandNode, dirNode *yaml.Node) {
	if dirNode != nil && dir != "" {
		if err := hostcheck.Dir(dir); err != nil {
			d.Errorf(dirNode, "%s: %v", who, err)
			if len(command) > 0 && strings.Contains(command[0], "/") {
				return // the program cannot be found in it either
			}
		}
	}
	if commandNode != nil && len(commandNode.Content) > 0 && commandNode.Content[0].Kind == yaml.ScalarNode {
		if err := hostcheck.Program(command[0], dir); err != nil {
			d.Errorf(commandNode.Content[0], "%s: %v", who, err)
		}
	}
}

// environ reads an upstream's added environment: KEY=value entries.
func (d *decoder) environ(n *yaml.Node) []string {
	var out []string
	for _, item := range d.Seq(n) {
		e := d.Str(item)
		if k, _, ok := strings.Cut(e, "="); (!ok || k == "") && item.Kind == yaml.ScalarNode {
			d.Errorf(item, "want an environment entry such as KEY=value, got %q", e)
		}
		out = append(out, e)
	}
	return out
}

// envNames reads the names of the variables of the gateway's environment
// a command inherits beyond the default ones.
func (d *decoder) envNames(n *yaml.Node) []string {
	var out []string
	for _, item := range d.Seq(n) {
		k := d.Str(item)
		if (k == "" || strings.ContainsAny(k, "=\x00")) && item.Kind == yaml.ScalarNode {
			d.Errorf(item, "want the name of an environment variable such as LANG, got %q", k)
		}
		out = append(out, k)
	}
	return out
}

// protocolVersion reads an MCP protocol version the gateway can speak.
func (d *decoder) protocolVersion(n *yaml.Node) string {
	v := d.Str(n)
	if known := mcp.SupportedProtocolVersions(); n.Kind == yaml.ScalarNode && !slices.Contains(known, v) {
		d.Errorf(n, "unknown MCP protocol version %q%s (known: %s)", v, yamlconf.DidYouMean(v, known), strings.Join(known, ", "))
	}
	return v
}

// removedHTTPTransport refuses an upstream's http_transport, at key,
// whatever its value: the key chose between hookflow's client transport
// and the SDK's, and hookflow's is now the only one. It is refused rather
// than let be (with a warning) for `hookflow`, as any other key the
// gateway does not read is: a key that does nothing should not stay in a
// file that seems to rely on it.
func (d *decoder) removedHTTPTransport(key *yaml.Node) {
	d.Errorf(key, "http_transport was removed: the gateway reaches every url upstream with hookflow's streamable HTTP client; delete the key")
}

// url reads an http or https URL.
func (d *decoder) url(n *yaml.Node) string {
	s := d.Str(n)
	if u, err := url.Parse(s); s != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		d.Errorf(n, "want an http or https URL, got %q", s)
	}
	return s
}

// headers reads an upstream's further headers, and returns the key of
// the Authorization header among them, if any.
func (d *decoder) headers(n *yaml.Node) (http.Header, *yaml.Node) {
	h := http.Header{}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, "headers must be a mapping of header names to values")
		return h, nil
	}
	var auth *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if http.CanonicalHeaderKey(k.Value) == "Authorization" && auth == nil {
			auth = k
		}
		h.Add(k.Value, d.Str(n.Content[i+1]))
	}
	return h, auth
}

func (d *decoder) plugins(n *yaml.Node) PluginsConfig {
	var p PluginsConfig
	add := func(spec PluginSpec, cfg any) {
		p.List = append(p.List, PluginConfig{Spec: spec, Config: cfg})
	}
	fields := map[string]func(*yaml.Node){
		"noop": func(n *yaml.Node) { p.Noop = d.Bool(n) },
	}
	for _, spec := range d.specs {
		fields[spec.Name()] = func(n *yaml.Node) {
			v := reflect.New(spec.Config())
			if d.Section(n, spec.Name(), v.Interface()) {
				add(spec, v.Elem().Interface())
			}
		}
	}
	d.Mapping(n, "plugins", fields)
	return p
}

// log reads how the command logs: format text or json, level debug, info,
// warn or error.
func (d *decoder) log(n *yaml.Node, l *LogConfig) {
	d.Mapping(n, "log", map[string]func(*yaml.Node){
		"format": func(n *yaml.Node) {
			switch f := d.Str(n); f {
			case "text", "json":
				l.Format = f
			default:
				d.Errorf(n, "want text or json, got %q%s", f, yamlconf.DidYouMean(f, []string{"json", "text"}))
			}
		},
		"level": func(n *yaml.Node) {
			lv, err := parseLevel(d.Str(n))
			if err != nil {
				d.Errorf(n, "%v", err)
				return
			}
			l.Level = &lv
		},
	})
}

// parseLevel reads a log level: debug, info, warn or error.
func parseLevel(s string) (slog.Level, error) {
	levels := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
	if lv, ok := levels[s]; ok {
		return lv, nil
	}
	return 0, fmt.Errorf("want debug, info, warn or error, got %q%s", s, yamlconf.DidYouMean(s, []string{"debug", "error", "info", "warn"}))
}

// checked reads a string that check accepts.
func (d *decoder) checked(n *yaml.Node, check func(string) error) string {
	s := d.Str(n)
	if err := check(s); err != nil && n.Kind == yaml.ScalarNode {
		d.Errorf(n, "%v", err)
	}
	return s
}

// patterns reads a list of tool names or globs.
func (d *decoder) patterns(n *yaml.Node) []string {
	var out []string
	for _, item := range d.Seq(n) {
		out = append(out, d.checked(item, filter.Pattern))
	}
	return out
}
