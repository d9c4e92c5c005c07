package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// gatewayFlags are the gateway command's flags, parsed.
type gatewayFlags struct {
	configPath, explain, command, url, tokenEnv, prefix, upName string
	httpAddr, healthPath, healthAddr, logFormat                 string
	check, stdio, stateless, verbose                            bool
	drain, sessionTimeout                                       time.Duration
	// set are the flags given, by name.
	set map[string]bool
}

// parseGatewayFlags parses args, reporting to w what is wrong with them
// by themselves; ok is false when the command ends with code.
func parseGatewayFlags(args []string, w io.Writer) (f *gatewayFlags, code int, ok bool) {
	f = &gatewayFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(&f.configPath, "config", "", "the configuration file (YAML)")
	fs.BoolVar(&f.check, "check", false, "check the configuration and exit, without serving or starting upstreams")
	fs.StringVar(&f.explain, "explain", "", "print the ordered hook plan of `flow` for every entity, and exit")
	fs.StringVar(&f.command, "command", "", "one upstream: the command to run over stdio (split like a shell would, without one)")
	fs.StringVar(&f.url, "url", "", "one upstream: its streamable HTTP URL")
	fs.StringVar(&f.tokenEnv, "token-env", "", "with -url: the environment variable holding the upstream's bearer token")
	fs.StringVar(&f.prefix, "prefix", "", "one upstream: prefix for its tool and prompt names")
	fs.StringVar(&f.upName, "name", "upstream", "one upstream: its `name` in errors, logs and health")
	fs.StringVar(&f.httpAddr, "http", "", "serve streamable HTTP on `addr` (overrides the configuration)")
	fs.BoolVar(&f.stdio, "stdio", false, "serve over stdio (overrides the configuration's http, stateless and drain)")
	fs.BoolVar(&f.stateless, "stateless", false, "with -http: stateless streamable HTTP")
	fs.StringVar(&f.healthPath, "health", "", "serve health endpoints under `path`: path/live and path/ready (overrides the configuration)")
	fs.StringVar(&f.healthAddr, "health-addr", "", "serve the health endpoints on a listener of their own at `addr`, under /health unless -health says (overrides the configuration)")
	fs.DurationVar(&f.drain, "drain", 0, "after SIGTERM, go on serving HTTP for `duration` with readiness failing, then shut down (overrides the configuration)")
	fs.DurationVar(&f.sessionTimeout, "session-timeout", host.DefaultSessionTimeout, "close a client's HTTP session after `duration` without a request from it; 0 never (overrides the configuration)")
	fs.BoolVar(&f.verbose, "v", false, "log at debug level (overrides the configuration)")
	fs.StringVar(&f.logFormat, "log-format", "", "log as `text` or json (overrides the configuration)")
	fs.Usage = func() {
		io.WriteString(w, gatewayUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK, false
		}
		return nil, exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(w, "hookflow gateway: unexpected arguments %q\n", fs.Args())
		return nil, exitUsage, false
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.exclusive(); err != nil {
		fmt.Fprintf(w, "hookflow gateway: %v\n", err)
		return nil, exitUsage, false
	}
	if one := f.command != "" || f.url != ""; (f.configPath == "") == !one || (f.command != "" && f.url != "") {
		fmt.Fprintln(w, "hookflow gateway: give -config, or one upstream with -command or -url")
		fs.Usage()
		return nil, exitUsage, false
	}
	return f, exitOK, true
}

// exclusive reports two flags given together that exclude each other.
func (f *gatewayFlags) exclusive() error {
	for _, c := range []struct {
		a, b bool
		msg  string
	}{
		{f.check, f.explain != "", "-check and -explain exclude each other: give one"},
		{f.httpAddr != "", f.stdio, "give -http or -stdio, not both"},
		{f.set["stateless"] && f.stateless, f.stdio, "-stateless is for streamable HTTP (-http), not -stdio"},
		{f.set["drain"] && f.drain > 0, f.stdio, "-drain is for streamable HTTP (-http): over stdio there is nothing to drain"},
		{f.set["session-timeout"], f.stdio, "-session-timeout is for streamable HTTP (-http): over stdio the client's session ends with its connection"},
	} {
		if c.a && c.b {
			return errors.New(c.msg)
		}
	}
	return nil
}

// config reads the configuration file, or makes the configuration of
// the flags' one upstream; on an error, reported to w, it returns nil and
// the command's exit code.
func (f *gatewayFlags) config(w io.Writer) (*host.Config, int) {
	if f.configPath != "" {
		cfg, err := host.ReadConfig(f.configPath, host.LoadOptions{Plugins: gatewayPlugins()})
		if err == nil {
			return cfg, exitOK
		}
		if errors.As(err, new(*os.PathError)) {
			// The file could not be read: no position to give.
			fmt.Fprintf(w, "hookflow gateway: %v\n", err)
		} else {
			fmt.Fprintln(w, err)
		}
		return nil, exitFailed
	}
	u, err := oneUpstream(f.upName, f.command, f.url, f.tokenEnv, f.prefix)
	if err != nil {
		fmt.Fprintf(w, "hookflow gateway: %v\n", err)
		return nil, exitUsage
	}
	if len(u.Command) > 0 {
		if err := u.CheckHost(); err != nil {
			fmt.Fprintf(w, "hookflow gateway: -command: %v\n", err)
			return nil, exitFailed
		}
	}
	return &host.Config{Serve: host.ServeConfig{SessionTimeout: host.DefaultSessionTimeout},
		Upstreams: []host.UpstreamConfig{{Upstream: u}}}, exitOK
}

// apply sets over cfg what the flags given say, and reports a value a
// flag gave that does not fit, with the flag's name.
func (f *gatewayFlags) apply(cfg *host.Config) error {
	s := &cfg.Serve
	for name := range f.set {
		switch name {
		case "http":
			s.HTTP, s.Stdio = f.httpAddr, false
		case "stateless":
			s.Stateless = f.stateless
		case "health":
			s.Health = f.healthPath
		case "session-timeout":
			s.SessionTimeout = f.sessionTimeout
		case "drain":
			s.Drain = f.drain
		case "health-addr":
			s.HealthAddr = f.healthAddr
		}
	}
	// Over stdio the file's HTTP settings have nothing to apply to; the
	// flags that exclude -stdio were refused already.
	if f.set["stdio"] {
		if s.Stdio = f.stdio; f.stdio {
			s.HTTP, s.Stateless, s.Drain = "", false, 0
		}
	}
	var flagErr error
	switch {
	case f.set["stateless"] && f.stateless && s.Stdio:
		flagErr = errors.New("-stateless is for streamable HTTP, and the configuration serves stdio: give -http addr too")
	case f.set["drain"] && f.drain > 0 && s.Stdio:
		flagErr = errors.New("-drain is for streamable HTTP, and the configuration serves stdio (nothing to drain): give -http addr too")
	}
	if j, ok := s.Validate().(interface{ Unwrap() []error }); ok {
		for _, err := range j.Unwrap() {
			var fe *flows.Error
			if !errors.As(err, &fe) {
				continue
			}
			if flag := strings.ReplaceAll(fe.Field, "_", "-"); f.set[flag] {
				flagErr = fmt.Errorf("-%s: %s", flag, fe.Msg)
			}
		}
	}
	if flagErr != nil {
		return flagErr
	}
	switch f.logFormat {
	case "":
	case "text", "json":
		cfg.Log.Format = f.logFormat
	default:
		return fmt.Errorf("-log-format: want text or json, got %q", f.logFormat)
	}
	return nil
}

// oneUpstream is the upstream the flags describe.
func oneUpstream(name, command, url, tokenEnv, prefix string) (gateway.Upstream, error) {
	u := gateway.Upstream{Name: name, URL: url, Prefix: prefix}
	if name == "" {
		return u, errors.New("-name: the upstream needs a name")
	}
	if command != "" {
		words, err := splitCommand(command)
		if err != nil {
			return u, err
		}
		u.Command = words
	}
	if tokenEnv != "" {
		if url == "" {
			return u, errors.New("-token-env is for -url")
		}
		if u.Token = os.Getenv(tokenEnv); u.Token == "" {
			return u, fmt.Errorf("-token-env: environment variable %s is not set", tokenEnv)
		}
	}
	return u, nil
}
