package console

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// Config configures the console. The zero value keeps the last
// DefaultRuns runs and serves nothing by itself: mount [Plugin.Handler]
// behind the auth plugin, or set Addr and TokenEnv.
type Config struct {
	// Name is the plugin's name (default "console").
	Name string `yaml:"name"`
	// Addr is the address of the console's own HTTP listener, such as
	// "127.0.0.1:9090" (none by default: a program mounts
	// [Plugin.Handler] itself, and the gateway serves the console on its
	// MCP listener under Path, behind the auth plugin, to tokens with
	// Scope). A listener of its own needs Token or TokenEnv: no auth
	// plugin stands in front of it.
	Addr string `yaml:"addr"`
	// Path is the path the console is served under (default "/console").
	Path string `yaml:"path"`
	// TokenEnv names the environment variable that holds the console's
	// admin token (none by default). A visitor presents it as a bearer
	// token, or as the password of HTTP basic authentication (any user
	// name), which browsers ask for on their own.
	TokenEnv string `yaml:"token_env"`
	// Token is the admin token itself, for programs that configure the
	// console in Go; a configuration file names an environment variable
	// instead (TokenEnv).
	Token string `yaml:"-"`
	// Scope is the scope a verified bearer token needs to open the
	// console when the auth plugin's handler stands in front of it
	// (default DefaultScope, "hookflow:console").
	Scope string `yaml:"scope"`
	// Runs is how many finished runs the console keeps, newest first
	// (default DefaultRuns, 1000; at most MaxRuns, 100000). Older runs
	// are forgotten.
	Runs int `yaml:"runs"`
	// Redact lists argument and result fields the console shows as
	// [flows.Redacted] besides the default secret list of
	// [flows.Redactor] (passwords, tokens, secrets, API keys, cookies…):
	// the audit plugin's list, read the same way, so the same fields are
	// hidden.
	Redact []string `yaml:"redact"`
	// Reveal lists names the default secret list hides that the console
	// shows anyway ("session_id"), as the audit plugin's; Redact wins
	// over it.
	Reveal []string `yaml:"reveal"`
	// MaxBytes caps the arguments and the result kept of each run, after
	// redaction (default DefaultMaxBytes, 4 KiB; at most 1 MiB): a longer
	// one is cut and marked.
	MaxBytes int `yaml:"max_bytes"`
	// Results keeps each tool call's result, redacted and capped like the
	// arguments, for the run page (default false: off, since a tool's
	// text content may hold what no field name redacts, and encoding it
	// costs the call an allocation of its size).
	Results bool `yaml:"results"`
	// Window is how far back the rate charts go (default 5m; at least
	// 10s, at most 1h), in 300 buckets (one second each by default).
	Window time.Duration `yaml:"window"`
	// TraceURL links each run the otel plugin traced to its trace, with
	// "{trace_id}" replaced by the run's trace ID (none by default), as
	// in "http://jaeger:16686/trace/{trace_id}".
	TraceURL string `yaml:"trace_url"`
	// HealthURL is the readiness endpoint whose JSON report the console
	// shows as the upstreams' health (none by default), such as the
	// gateway's "http://127.0.0.1:8080/health/ready". It is read when the
	// page is drawn, with a 2 s timeout.
	HealthURL string `yaml:"health_url"`
	// Health reports the upstreams' health in process, for programs
	// that build a gateway in Go: give it gateway.Gateways of their
	// gateways. It comes before HealthURL.
	Health flows.HealthReporter `yaml:"-"`
	// Viewers caps the live streams open at once (default
	// DefaultViewers, 16); a viewer past it gets 503.
	Viewers int `yaml:"viewers"`
}

// The defaults and bounds of [Config].
const (
	DefaultScope    = "hookflow:console"
	DefaultPath     = "/console"
	DefaultRuns     = 1000
	MaxRuns         = 100_000
	DefaultMaxBytes = 4 << 10
	maxMaxBytes     = 1 << 20
	DefaultWindow   = 5 * time.Minute
	maxWindow       = time.Hour
	DefaultViewers  = 16
	maxViewers      = 1024
)

// Validate checks the configuration without a server. Each error is a
// *flows.Error whose Field is the field's name in a configuration file
// ("token_env").
func (c Config) Validate() error {
	var errs []error
	invalid := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	bound := func(field string, v, limit int64, unit string) {
		switch {
		case v < 0:
			invalid(field, "must not be negative, got %d", v)
		case v > limit:
			invalid(field, "must be at most %d%s, got %d", limit, unit, v)
		}
	}
	bound("runs", int64(c.Runs), MaxRuns, "")
	bound("max_bytes", int64(c.MaxBytes), maxMaxBytes, " bytes")
	bound("viewers", int64(c.Viewers), maxViewers, "")
	switch {
	case c.Window < 0:
		invalid("window", "must not be negative, got %v", c.Window)
	case c.Window > maxWindow:
		invalid("window", "must be at most %v, got %v", maxWindow, c.Window)
	case c.Window != 0 && c.Window < 10*time.Second:
		invalid("window", "must be at least 10s, got %v", c.Window)
	}
	if c.Path != "" && (!strings.HasPrefix(c.Path, "/") || strings.HasSuffix(c.Path, "/") || strings.ContainsAny(c.Path, "?#")) {
		invalid("path", "must start with / and end without one, e.g. /console; got %q", c.Path)
	}
	if c.Addr != "" {
		if _, _, err := net.SplitHostPort(c.Addr); err != nil {
			invalid("addr", "must be host:port, e.g. 127.0.0.1:9090: %v", err)
		}
		if c.Token == "" && c.TokenEnv == "" {
			invalid("token_env", "required with addr: the console's own listener has no auth plugin in front of it")
		}
	}
	if c.Token != "" && len(c.Token) < minToken {
		invalid("token", "must be at least %d characters long, got %d", minToken, len(c.Token))
	}
	if c.TraceURL != "" {
		if err := checkURL(c.TraceURL); err != nil {
			invalid("trace_url", "%v", err)
		} else if !strings.Contains(c.TraceURL, "{trace_id}") {
			invalid("trace_url", "must hold {trace_id}, replaced by the run's trace ID")
		}
	}
	if c.HealthURL != "" {
		if err := checkURL(c.HealthURL); err != nil {
			invalid("health_url", "%v", err)
		}
	}
	for i, r := range c.Redact {
		if _, err := flows.NewRedactor(flows.Redaction{Fields: []string{r}}); err != nil {
			invalid(fmt.Sprintf("redact[%d]", i), "%s", flows.Reason(err))
		}
	}
	for i, r := range c.Reveal {
		if _, err := flows.NewRedactor(flows.Redaction{Reveal: []string{r}}); err != nil {
			invalid(fmt.Sprintf("reveal[%d]", i), "%s", flows.Reason(err))
		}
	}
	return errors.Join(errs...)
}

// OnHostListener reports whether the console has no listener of its own
// (Addr is empty): a host that serves its MCP server over HTTP (the
// hookflow gateway) then serves [Plugin.Pages] on that listener, behind
// the auth plugin.
func (c Config) OnHostListener() bool { return c.Addr == "" }

// minToken is the shortest admin token the console accepts.
const minToken = 16

// checkURL checks that s is an absolute http or https URL.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http or https URL with a host, got %q", s)
	}
	return nil
}

// checkTokenEnv checks the token Config.TokenEnv names, when the
// console starts (a configuration is checked without its environment).
func (c Config) checkTokenEnv() error {
	if c.TokenEnv == "" {
		return nil
	}
	v, ok := os.LookupEnv(c.TokenEnv)
	switch {
	case !ok || v == "":
		return &flows.Error{Code: flows.CodeInvalid, Field: "token_env", Msg: fmt.Sprintf("the environment variable %s is not set or empty", c.TokenEnv)}
	case len(v) < minToken:
		return &flows.Error{Code: flows.CodeInvalid, Field: "token_env", Msg: fmt.Sprintf("the token in %s must be at least %d characters long, got %d", c.TokenEnv, minToken, len(v))}
	}
	return nil
}

// withDefaults returns c with its zero fields set to their defaults and
// its token resolved.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "console"
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.Scope == "" {
		c.Scope = DefaultScope
	}
	if c.Runs == 0 {
		c.Runs = DefaultRuns
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Viewers == 0 {
		c.Viewers = DefaultViewers
	}
	if c.Token == "" && c.TokenEnv != "" {
		c.Token = os.Getenv(c.TokenEnv)
	}
	return c
}
