package host

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/hostcheck"
	"github.com/hookflow/hookflow/internal/yamlconf"
	"github.com/hookflow/hookflow/plugins/gateway/internal/filter"
)

// problems collects the errors of a Validate, each about the field at its
// path.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// under adds the errors err joins, their fields under path.
func (p *problems) under(path string, err error) {
	var j []error
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		j = u.Unwrap()
	} else if err != nil {
		j = []error{err}
	}
	for _, e := range j {
		var fe *flows.Error
		if errors.As(e, &fe) {
			c := *fe
			c.Field = yamlconf.Join(path, fe.Field)
			e = &c
		}
		*p = append(*p, e)
	}
}

// Validate checks the file's values, each error at the key it is about:
// yamlconf reports them, leaving out those about a value whose decoding
// already failed.
func (f *fileConfig) Validate() error {
	var p problems
	p.under("serve", f.Serve.Validate())
	checkMetrics(&f.Config, p.add)
	if fm := f.Log.Format; fm != "" && fm != "text" && fm != "json" {
		p.add("log.format", "want text or json, got %q%s", fm, yamlconf.DidYouMean(fm, []string{"json", "text"}))
	}
	var apps []string
	for i, a := range f.Apps {
		at := fmt.Sprintf("apps[%d].name", i)
		if a.Name == "" {
			p.add(at, "an app needs a name")
		} else if slices.Contains(apps, a.Name) {
			p.add(at, "two apps are named %q", a.Name)
		}
		apps = append(apps, a.Name)
	}
	if len(f.Upstreams) == 0 {
		p.add("upstreams", "no upstream: add at least one under upstreams")
	}
	for i, u := range f.Upstreams {
		dup := slices.ContainsFunc(f.Upstreams[:i], func(o upstreamFile) bool { return o.Name == u.Name })
		p.under(upstreamAt(i), u.validate(dup))
		if u.App != "" && !slices.Contains(apps, u.App) {
			p.add(upstreamAt(i)+".app", "upstream %q is mounted into app %q, which apps does not define%s", u.Name, u.App, yamlconf.DidYouMean(u.App, apps))
		}
	}
	f.checkEndpoints(&p)
	return errors.Join(p...)
}

// validate checks an upstream by itself; dup says an upstream before it
// has its name.
func (u upstreamFile) validate(dup bool) error {
	var p problems
	_, auth := u.Header["Authorization"]
	switch command := len(u.Command) > 0; {
	case u.Name == "":
		p.add("name", "an upstream needs a name")
	case dup:
		p.add("name", "two upstreams are named %q", u.Name)
	case !command && u.URL == "":
		p.add("command", "upstream %q needs a command or a url", u.Name)
	case command && u.URL != "":
		p.add("", "upstream %q has a command and a url: give one", u.Name)
	case command && (u.Token != "" || len(u.Header) > 0):
		p.add("", "upstream %q: token and headers are for url upstreams", u.Name)
	case command && u.OAuth != nil:
		p.add("", "upstream %q: oauth is for url upstreams", u.Name)
	case u.Token != "" && u.OAuth != nil:
		p.add("", "upstream %q: give token (or token_env) or oauth, not both", u.Name)
	case auth && u.Token != "":
		p.add("headers.Authorization", "upstream %q: an Authorization header and token (or token_env) both authenticate to the upstream: give one", u.Name)
	case auth && u.OAuth != nil:
		p.add("headers.Authorization", "upstream %q: an Authorization header and oauth both authenticate to the upstream: give one", u.Name)
	}
	p.url("url", u.URL)
	for i, e := range u.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			p.add(fmt.Sprintf("env[%d]", i), "want an environment entry such as KEY=value, got %q", e)
		}
	}
	for i, k := range u.InheritEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			p.add(fmt.Sprintf("inherit_env[%d]", i), "want the name of an environment variable such as LANG, got %q", k)
		}
	}
	if known := mcp.SupportedProtocolVersions(); u.ProtocolVersion != "" && !slices.Contains(known, u.ProtocolVersion) {
		p.add("protocol_version", "unknown MCP protocol version %q%s (known: %s)", u.ProtocolVersion, yamlconf.DidYouMean(u.ProtocolVersion, known), strings.Join(known, ", "))
	}
	p.checked("resource_prefix", u.ResourcePrefix, filter.ResourcePrefix)
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"allow_tools", u.AllowTools}, {"deny_tools", u.DenyTools}} {
		for i, s := range list.patterns {
			p.checked(fmt.Sprintf("%s[%d]", list.key, i), s, filter.Pattern)
		}
	}
	if u.MaxSessions < 0 {
		p.add("max_sessions", "want a non-negative integer, got %d", u.MaxSessions)
	}
	if u.OAuth != nil {
		p.under("oauth", u.OAuth.validate())
	}
	return errors.Join(p...)
}

// url checks that s, the value of field, is "" or an http or https URL.
func (p *problems) url(field, s string) {
	if u, err := url.Parse(s); s != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		p.add(field, "want an http or https URL, got %q", s)
	}
}

// checked adds what check says of s, the value of field.
func (p *problems) checked(field, s string, check func(string) error) {
	if err := check(s); err != nil {
		p.add(field, "%v", err)
	}
}

// CheckHost checks that each upstream's command is found where starting
// it would look, and its dir exists.
func (f *fileConfig) CheckHost() error {
	var p problems
	for i, u := range f.Upstreams {
		if len(u.Command) == 0 {
			continue
		}
		if u.Dir != "" {
			if err := hostcheck.Dir(u.Dir); err != nil {
				p.add(upstreamAt(i)+".dir", "upstream %q: %v", u.Name, err)
				if strings.Contains(u.Command[0], "/") {
					continue // the program cannot be found in it either
				}
			}
		}
		if err := hostcheck.Program(u.Command[0], cmp.Or(u.Dir, f.dir)); err != nil {
			p.add(upstreamAt(i)+".command[0]", "upstream %q: %v", u.Name, err)
		}
	}
	return errors.Join(p...)
}

// Validate reports what is wrong with s by itself: nil, or the
// errors.Join of *flows.Error values whose Field is the key they are
// about ("" for serve itself). What needs the rest of the Config (the
// health endpoints need an HTTP listener) is checked by [Check] and
// [Serve].
func (s ServeConfig) Validate() error {
	var p problems
	if s.Health != "" && (!strings.HasPrefix(s.Health, "/") || strings.ContainsAny(s.Health, "?# \t\r\n")) {
		p.add("health", "want a path such as /health, got %q", s.Health)
	}
	if s.Metrics != "" && (!strings.HasPrefix(s.Metrics, "/") || strings.ContainsAny(s.Metrics, "?# \t\r\n")) {
		p.add("metrics", "want a path such as /metrics, got %q", s.Metrics)
	}
	if s.HealthAddr != "" {
		_, port, err := net.SplitHostPort(s.HealthAddr)
		if n, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || (n == 0 && port != "0") {
			p.add("health_addr", "want an address such as 127.0.0.1:9090, got %q", s.HealthAddr)
		}
	}
	if s.Drain < 0 {
		p.add("drain", "want a duration such as 5s, got %v", s.Drain)
	}
	if s.SessionTimeout < 0 {
		p.add("session_timeout", "want a duration such as 30m, got %v", s.SessionTimeout)
	}
	switch {
	case s.Stdio && s.HTTP != "":
		p.add("", "serve stdio or http, not both")
	case s.Stdio && s.Stateless:
		p.add("", "stateless is for http: over stdio there are no HTTP sessions to do without")
	case s.Stdio && s.Drain > 0:
		p.add("", "drain is for http: over stdio there is nothing to drain")
	}
	return errors.Join(p...)
}

// checkListeners checks what serve's keys and the flags that override
// them set together: the health endpoints need an HTTP listener, and
// the metrics the health endpoints.
func (s ServeConfig) checkListeners() error {
	switch {
	case s.Health == "" && s.HealthAddr == "" && s.Metrics != "":
		return errors.New("serve.metrics is served with the health endpoints: set serve.health (on the MCP listener) or serve.health_addr (a listener of their own) too")
	case s.Health == "" && s.HealthAddr == "":
		return nil
	case s.HealthAddr == "" && s.Stdio:
		return errors.New("serve.health needs an HTTP listener, and stdio serves none: set serve.health_addr (-health-addr addr) to serve the health endpoints on a listener of their own next to stdio, or leave serve.health out (-health '') to serve none")
	case s.HealthAddr != "" && s.HealthAddr == s.HTTP && !strings.HasSuffix(s.HTTP, ":0"):
		return fmt.Errorf("serve.health_addr is serve.http's address %s: leave it out to serve health on the MCP listener", s.HTTP)
	}
	return nil
}
