package intercept

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Config configures the intercept plugin. Servers is required.
type Config struct {
	// Name is the plugin's name (default "intercept").
	Name string
	// Servers are the interceptor hosts, in the order that breaks ties
	// between mutators of equal priority hint and name.
	Servers []Server
	// Policy overrides what the hosts' interceptors declare, per
	// interceptor (the SEP's invoker policy).
	Policy []Policy
	// Timeout bounds every invocation whose policy sets none (default
	// DefaultTimeout); the host is asked to stop at the same bound
	// (timeoutMs). A negative value means no bound.
	Timeout time.Duration
	// ConnectTimeout bounds connecting to a host and listing its
	// interceptors, at start and when reconnecting (default
	// DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// RetryAfter is how long after a failed reconnect the plugin fails an
	// unreachable host's invocations without trying again (default
	// DefaultRetryAfter).
	RetryAfter time.Duration
	// Explain puts the validators' messages in the reason a blocked client
	// reads. By default the client reads only that an interceptor blocked
	// the operation: the SEP advises against copying interceptors' findings
	// across the trust boundary, and they are in the log and the audit
	// decisions.
	Explain bool
	// Logger receives failures of interceptors and hosts; nil uses the
	// server's logger.
	Logger *slog.Logger
}

// The defaults of [Config].
const (
	DefaultTimeout        = 5 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultRetryAfter     = time.Second
)

// Server is one interceptor host: a streamable HTTP endpoint or a command
// that speaks MCP on its standard input and output.
type Server struct {
	// Name identifies the host in hook IDs ("<name>:<interceptor>"),
	// decisions and errors; required and unique.
	Name string
	// URL is the host's streamable HTTP endpoint.
	URL string
	// Token is the bearer token sent to URL.
	Token string
	// HTTPClient sends the requests to URL; nil uses a client of the
	// plugin's own (keep-alive, enough idle connections for concurrent
	// validators).
	HTTPClient *http.Client
	// Command runs the host and talks to it over stdio: the program (a
	// path, or a name looked up in PATH) and its arguments; no shell.
	Command []string
	// Env is added to the command's environment, which otherwise holds
	// only the variables of the invoker's environment that [DefaultEnv]
	// and InheritEnv name, when set there: a host does not see the
	// invoker's secrets (its clients' tokens, other hosts'). Env's
	// KEY=value entries win over an inherited variable of the same name.
	// Dir is the command's working directory.
	Env []string
	Dir string
	// InheritEnv names further variables of the invoker's environment the
	// command gets when they are set there, such as LANG or HTTPS_PROXY.
	InheritEnv []string
}

// DefaultEnv returns the names of the variables of the invoker's
// environment that every stdio host gets, as the MCP SDKs' stdio clients
// for TypeScript and Python pass them (and as the gateway passes them to
// its stdio upstreams): HOME, LOGNAME, PATH, SHELL, TERM and USER (on
// Windows, the variables that locate the user's profile, the system and
// the temporary directory, and PATH).
func DefaultEnv() []string {
	if runtime.GOOS == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}

// environ returns the environment of s's command: the variables
// [DefaultEnv] and s.InheritEnv name that the invoker's environment sets
// (an unset one is left out, not passed empty), then s.Env.
func (s Server) environ() []string {
	names := append(DefaultEnv(), s.InheritEnv...)
	out := make([]string, 0, len(names)+len(s.Env))
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return append(out, s.Env...)
}

// Policy is the invoker's policy for one interceptor: what the deployment
// decides, overriding the author's defaults from the host. Fields left at
// their zero value keep the host's declaration.
type Policy struct {
	// Server and Interceptor name the interceptor; Server may be empty
	// when no other host has an interceptor of that name.
	Server, Interceptor string
	// Disabled leaves the interceptor out.
	Disabled bool
	// Mode overrides the mode: wire.Active or wire.Audit.
	Mode wire.Mode
	// FailOpen overrides the failure routing.
	FailOpen *bool
	// PriorityHint overrides a mutator's order.
	PriorityHint *wire.PriorityHint
	// Timeout overrides Config.Timeout for this interceptor.
	Timeout time.Duration
	// Hooks narrows the events and phases the interceptor runs on; it may
	// only remove what the host advertised.
	Hooks []wire.Hook
	// Config is sent with every invocation of the interceptor.
	Config map[string]any
}

// check reports what is wrong with the configuration, field by field.
func (c *Config) check() error {
	var errs []error
	if len(c.Servers) == 0 {
		errs = append(errs, errors.New("Config.Servers: at least one interceptor host is required"))
	}
	seen := map[string]bool{}
	for i, s := range c.Servers {
		at := fmt.Sprintf("Config.Servers[%d]", i)
		switch {
		case s.Name == "":
			errs = append(errs, fmt.Errorf("%s.Name: required", at))
		case seen[s.Name]:
			errs = append(errs, fmt.Errorf("%s.Name: %q names two servers", at, s.Name))
		}
		seen[s.Name] = true
		switch {
		case s.URL == "" && len(s.Command) == 0:
			errs = append(errs, fmt.Errorf("%s: set URL (streamable HTTP) or Command (stdio)", at))
		case s.URL != "" && len(s.Command) > 0:
			errs = append(errs, fmt.Errorf("%s: set URL or Command, not both", at))
		case s.URL != "":
			if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs = append(errs, fmt.Errorf("%s.URL: %q is not an http(s) URL", at, s.URL))
			}
		case s.Command[0] == "":
			errs = append(errs, fmt.Errorf("%s.Command: the program is empty", at))
		}
		for _, k := range s.InheritEnv {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				errs = append(errs, fmt.Errorf("%s.InheritEnv: %q is not a variable name", at, k))
			}
		}
		if s.Token != "" && s.URL == "" {
			errs = append(errs, fmt.Errorf("%s.Token: a token is sent over HTTP only; set URL", at))
		}
	}
	for i, p := range c.Policy {
		at := fmt.Sprintf("Config.Policy[%d]", i)
		if p.Interceptor == "" {
			errs = append(errs, fmt.Errorf("%s.Interceptor: required", at))
		}
		if p.Server != "" && !seen[p.Server] {
			errs = append(errs, fmt.Errorf("%s.Server: no server is named %q", at, p.Server))
		}
		if p.Mode != "" && p.Mode != wire.Active && p.Mode != wire.Audit {
			errs = append(errs, fmt.Errorf("%s.Mode: %q is not %q or %q", at, p.Mode, wire.Active, wire.Audit))
		}
		if p.Timeout < 0 {
			errs = append(errs, fmt.Errorf("%s.Timeout: must not be negative, got %v", at, p.Timeout))
		}
		for j, h := range p.Hooks {
			if _, err := wire.ParsePhase(string(h.Phase)); err != nil {
				errs = append(errs, fmt.Errorf("%s.Hooks[%d].Phase: %w", at, j, err))
			}
		}
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("Config.ConnectTimeout: must not be negative, got %v", c.ConnectTimeout))
	}
	if c.RetryAfter < 0 {
		errs = append(errs, fmt.Errorf("Config.RetryAfter: must not be negative, got %v", c.RetryAfter))
	}
	return errors.Join(errs...)
}
