package intercept

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hookflow/hookflow/internal/childenv"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/hostcheck"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// Config configures the intercept plugin; it is also the plugin's section
// of a configuration file (the yaml names below). Servers is required.
type Config struct {
	// Name is the plugin's name (default "intercept").
	Name string `yaml:"name"`
	// Servers are the interceptor hosts, in the order that breaks ties
	// between mutators of equal priority hint and name; at least one.
	Servers []Server `yaml:"servers"`
	// Policy overrides what the hosts' interceptors declare, per
	// interceptor (the SEP's invoker policy); none by default.
	Policy []Policy `yaml:"policy"`
	// Timeout bounds every invocation whose policy sets none, such as
	// "5s" (default DefaultTimeout, 5s); the host is asked to stop at the
	// same bound (timeoutMs). A negative value means no bound.
	Timeout time.Duration `yaml:"timeout"`
	// ConnectTimeout bounds connecting to a host and listing its
	// interceptors, at start and when reconnecting (default
	// DefaultConnectTimeout, 10s).
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// RetryAfter is how long after a failed reconnect the plugin fails an
	// unreachable host's invocations without trying again (default
	// DefaultRetryAfter, 1s).
	RetryAfter time.Duration `yaml:"retry_after"`
	// Explain puts the validators' messages in the reason a blocked client
	// reads. By default (false) the client reads only that an interceptor
	// blocked the operation: the SEP advises against copying interceptors'
	// findings across the trust boundary, and they are in the log and the
	// audit decisions.
	Explain bool `yaml:"explain"`
	// Logger receives failures of interceptors and hosts; nil uses the
	// server's logger (a [Chain]'s: slog.Default()). Go only.
	Logger *slog.Logger `yaml:"-"`
	// Decisions receives, on the sending side ([Chain]), every
	// invocation's decision with the event it was made on, as it is made;
	// nil drops them (failures are logged either way). The server side
	// records decisions on the run instead (flows.Context.Decide). Go
	// only.
	Decisions func(ctx context.Context, event string, d flows.Decision) `yaml:"-"`
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
	// decisions and errors; required, unique, and without ":".
	Name string `yaml:"name"`
	// URL is the host's streamable HTTP endpoint (http or https); give
	// URL or Command.
	URL string `yaml:"url"`
	// Token is the bearer token sent to URL; none by default.
	Token string `yaml:"token"`
	// TokenEnv names the environment variable holding Token, read when
	// the plugin is built, so that the file holds no secret; give Token
	// or TokenEnv.
	TokenEnv string `yaml:"token_env"`
	// HTTPClient sends the requests to URL; nil uses a client of the
	// plugin's own (keep-alive, enough idle connections for concurrent
	// validators). Go only.
	HTTPClient *http.Client `yaml:"-"`
	// Transport, when set, returns a new transport to a host in the same
	// process, such as one end of mcp.NewInMemoryTransports whose other
	// end a server serving package host's plugin is connected to
	// ([host.InMemory] does both); it is called again to reconnect. Give
	// URL, Command or Transport. Go only.
	Transport func(ctx context.Context) (mcp.Transport, error) `yaml:"-"`
	// Command runs the host and talks to it over stdio: the program (a
	// path, or a name looked up in PATH) and its arguments; no shell.
	Command []string `yaml:"command"`
	// Env is added to the command's environment, which otherwise holds
	// only the variables of the invoker's environment that [DefaultEnv]
	// and InheritEnv name, when set there: a host does not see the
	// invoker's secrets (its clients' tokens, other hosts'). Env's
	// KEY=value entries win over an inherited variable of the same name.
	// Dir is the command's working directory (a configuration file's
	// loader resolves a relative one against the file's directory).
	Env []string `yaml:"env"`
	Dir string   `yaml:"dir" path:"relative"`
	// Payload is how the host's interceptors get a request: "message"
	// (wire.ShapeMessage, the default), its method and params as the SEP's
	// example sends them, {"method": "tools/call", "params": {"name": …,
	// "arguments": …}}; or "params" (wire.ShapeParams), the params alone, as
	// the working group's SDKs read them (payload.arguments). A result is
	// sent as it is either way. Package host reads both.
	Payload wire.Shape `yaml:"payload"`
	// InheritEnv names further variables of the invoker's environment the
	// command gets when they are set there, such as LANG or HTTPS_PROXY.
	InheritEnv []string `yaml:"inherit_env"`
}

// DefaultEnv returns the names of the variables of the invoker's
// environment that every stdio host gets, as the MCP SDKs' stdio clients
// for TypeScript and Python pass them (and as the gateway passes them to
// its stdio upstreams): HOME, LOGNAME, PATH, SHELL, TERM and USER (on
// Windows, the variables that locate the user's profile, the system and
// the temporary directory, and PATH).
func DefaultEnv() []string { return childenv.Default() }

// environ returns the environment of s's command: the variables
// [DefaultEnv] and s.InheritEnv name that the invoker's environment sets
// (an unset one is left out, not passed empty), then s.Env.
func (s Server) environ() []string { return childenv.Environ(s.InheritEnv, s.Env) }

// Policy is the invoker's policy for one interceptor: what the deployment
// decides, overriding the author's defaults from the host. Fields left at
// their zero value keep the host's declaration.
type Policy struct {
	// Server and Interceptor name the interceptor; Server may be empty
	// when no other host has an interceptor of that name. Go only: a file
	// gives both as ID.
	Server, Interceptor string `yaml:"-"`
	// ID names the interceptor as a file does, when Interceptor is empty:
	// "host:interceptor" (such as guard:no-destructive-commands), or
	// "interceptor" on any host.
	ID string `yaml:"interceptor"`
	// Disabled leaves the interceptor out; false by default.
	Disabled bool `yaml:"disabled"`
	// Mode overrides the mode: "active" (wire.Active) or "audit"
	// (wire.Audit); by default the host's.
	Mode wire.Mode `yaml:"mode"`
	// FailOpen overrides the failure routing; by default the host's.
	FailOpen *bool `yaml:"fail_open"`
	// PriorityHint overrides a mutator's order: a number for both phases,
	// or {request: n, response: m}; by default the host's.
	PriorityHint *wire.PriorityHint `yaml:"priority_hint"`
	// Timeout overrides Config.Timeout for this interceptor, such as
	// "2s".
	Timeout time.Duration `yaml:"timeout"`
	// Hooks narrows the events and phases the interceptor runs on, such
	// as [{events: [tools/call], phase: request}]; it may only remove
	// what the host advertised, and a list that is set names at least
	// one. By default (nil) the host's.
	Hooks []wire.Hook `yaml:"hooks"`
	// Config is sent with every invocation of the interceptor; it must
	// be representable as JSON.
	Config map[string]any `yaml:"config"`
}

// names returns the host and the interceptor p names: Server and
// Interceptor, or, when Interceptor is empty, those of ID.
func (p Policy) names() (server, interceptor string) {
	if p.Interceptor != "" || p.ID == "" {
		return p.Server, p.Interceptor
	}
	if s, ic, ok := strings.Cut(p.ID, ":"); ok {
		return s, ic
	}
	return "", p.ID
}

// Validate reports what is wrong with the configuration: nil, or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path in a configuration file
// ("servers[0].url", "policy[1].hooks[0].phase"; "" for the whole
// section). It checks everything that needs no host, the token_env
// variables included; what needs the hosts (a policy naming an
// interceptor no host lists) is checked when the plugin is attached,
// which calls Validate first.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if len(c.Servers) == 0 {
		add("servers", "at least one interceptor host is required")
	}
	var names []string
	for i, s := range c.Servers {
		at := fmt.Sprintf("servers[%d]", i)
		switch {
		case s.Name == "":
			add(at+".name", "required")
		case strings.Contains(s.Name, ":"):
			add(at+".name", "%q holds \":\", which separates a host's name from an interceptor's (guard:no-destructive-commands)", s.Name)
		case slices.Contains(names, s.Name):
			add(at+".name", "%q names two hosts", s.Name)
		}
		names = append(names, s.Name)
		ways := 0
		for _, set := range []bool{s.URL != "", len(s.Command) > 0, s.Transport != nil} {
			if set {
				ways++
			}
		}
		switch {
		case ways == 0:
			add(at, "set url (streamable HTTP) or command (stdio)")
		case ways > 1 && s.Transport != nil:
			add(at, "Transport connects to the host: leave url and command out")
		case ways > 1:
			add(at, "set url or command, not both")
		case s.URL != "":
			if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				add(at+".url", "want an http or https URL, got %q", s.URL)
			}
		case len(s.Command) > 0 && s.Command[0] == "":
			add(at+".command", "the program is empty")
		}
		switch {
		case s.Token != "" && s.TokenEnv != "":
			add(at, "token and token_env both give the host's bearer token: keep one")
		case (s.Token != "" || s.TokenEnv != "") && s.URL == "":
			add(at, "a token is sent over HTTP only: set url, or leave the token out")
		case s.TokenEnv != "" && os.Getenv(s.TokenEnv) == "":
			add(at+".token_env", "environment variable %s is not set", s.TokenEnv)
		}
		if _, err := wire.ParseShape(string(s.Payload)); err != nil {
			add(at+".payload", "want message ({method, params}) or params (the params alone), got %q", string(s.Payload))
		}
		for j, e := range s.Env {
			if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
				add(fmt.Sprintf("%s.env[%d]", at, j), "want an environment entry such as KEY=value, got %q", e)
			}
		}
		for j, k := range s.InheritEnv {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				add(fmt.Sprintf("%s.inherit_env[%d]", at, j), "want the name of an environment variable such as LANG, got %q", k)
			}
		}
	}
	type named struct{ server, interceptor string }
	seen := map[named]int{}
	for i, p := range c.Policy {
		at := fmt.Sprintf("policy[%d]", i)
		server, ic := p.names()
		switch {
		case p.Interceptor != "" && p.ID != "":
			add(at, "Interceptor and ID (interceptor) both name the interceptor: keep one")
		case ic == "" && p.ID != "":
			add(at+".interceptor", "want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got %q", p.ID)
		case ic == "":
			add(at+".interceptor", "required: the interceptor, such as guard:no-destructive-commands")
		case p.Interceptor == "" && strings.Contains(p.ID, ":") && server == "":
			add(at+".interceptor", "want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got %q", p.ID)
		case server != "" && !slices.Contains(names, server):
			msg := fmt.Sprintf("no interceptor host is named %q", server)
			if near, ok := suggest.Closest(server, names); ok {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			add(at+".interceptor", "%s", msg)
		default:
			if j, ok := seen[named{server, ic}]; ok {
				add(at+".interceptor", "policy[%d] names the same interceptor", j)
			} else {
				seen[named{server, ic}] = i
			}
		}
		switch p.Mode {
		case "", wire.Active, wire.Audit:
		case "enforce":
			add(at+".mode", "want active or audit, got \"enforce\" (the older drafts' name of active)")
		default:
			msg := fmt.Sprintf("want active or audit, got %q", string(p.Mode))
			if near, ok := suggest.Closest(string(p.Mode), []string{string(wire.Active), string(wire.Audit)}); ok {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			add(at+".mode", "%s", msg)
		}
		if p.Timeout < 0 {
			add(at+".timeout", "must not be negative, got %v", p.Timeout)
		}
		if p.Hooks != nil && len(p.Hooks) == 0 {
			add(at+".hooks", "narrows the interceptor's hooks to those listed: list at least one, or leave the interceptor out with disabled: true")
		}
		for j, h := range p.Hooks {
			hat := fmt.Sprintf("%s.hooks[%d]", at, j)
			if len(h.Events) == 0 {
				add(hat+".events", "list at least one event, such as tools/call")
			}
			if _, err := wire.ParsePhase(string(h.Phase)); err != nil {
				add(hat+".phase", "want request or response, got %q", string(h.Phase))
			}
		}
		if p.Config != nil {
			if _, err := json.Marshal(p.Config); err != nil {
				add(at+".config", "must be representable as JSON: %v", err)
			}
		}
	}
	if c.ConnectTimeout < 0 {
		add("connect_timeout", "must not be negative, got %v", c.ConnectTimeout)
	}
	if c.RetryAfter < 0 {
		add("retry_after", "must not be negative, got %v", c.RetryAfter)
	}
	return errors.Join(errs...)
}

// CheckHost checks what the hosts' commands name on this machine, as
// starting them would find it, without starting them: each command's dir
// exists and its program is found there. Its errors are Validate's; a
// configuration file's loader calls it when checking the file
// (hookflow gateway -check).
func (c Config) CheckHost() error {
	var errs []error
	for i, s := range c.Servers {
		if len(s.Command) == 0 || s.Command[0] == "" {
			continue
		}
		at := fmt.Sprintf("servers[%d]", i)
		if s.Dir != "" {
			if err := hostcheck.Dir(s.Dir); err != nil {
				errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: at + ".dir", Msg: err.Error()})
				continue
			}
		}
		if err := hostcheck.Program(s.Command[0], s.Dir); err != nil {
			errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: at + ".command[0]", Msg: err.Error()})
		}
	}
	return errors.Join(errs...)
}

// resolved returns c with what a file gives by name made Go values: each
// server's token of TokenEnv, each policy's Server and Interceptor of ID
// (and a per-phase priority hint marked so).
// Slices are copied, so that the caller's Config is not changed.
func (c Config) resolved() Config {
	c.Servers = slices.Clone(c.Servers)
	for i, s := range c.Servers {
		if s.Token == "" && s.TokenEnv != "" {
			c.Servers[i].Token = os.Getenv(s.TokenEnv)
		}
	}
	c.Policy = slices.Clone(c.Policy)
	for i, p := range c.Policy {
		c.Policy[i].Server, c.Policy[i].Interceptor = p.names()
		if h := p.PriorityHint; h != nil && !h.PerPhase && h.Request != h.Response {
			// A file's {request: n, response: m}, which sets the fields.
			c.Policy[i].PriorityHint = wire.HintPerPhase(h.Request, h.Response)
		}
	}
	return c
}
