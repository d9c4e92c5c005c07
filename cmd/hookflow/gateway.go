package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	commandhook "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/guidance"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/middleware"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/plugins/ratelimit"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

func gatewayCommand() command {
	return command{
		name:    "gateway",
		summary: "serve upstream MCP servers through hookflow's flows, hooks and plugins",
		run:     gatewayMain,
	}
}

const gatewayUsage = `usage: hookflow gateway -config gateway.yaml [-check | -explain <flow>] [-http addr [-stateless] [-drain d] [-session-timeout d] | -stdio] [-health path] [-health-addr addr] [-log-format f] [-v]
       hookflow gateway -command "prog args" | -url URL [-token-env VAR] [-prefix p] [-name n] [-http addr [-stateless] [-drain d] [-session-timeout d] | -stdio] [-health path] [-health-addr addr] [-log-format f] [-v]

Serves the upstream MCP servers of the configuration (or the one given by
-command or -url) with the configured plugins in front, over stdio or
streamable HTTP. With -health or -health-addr it also serves health
endpoints for load balancers and probes, without auth: path/live (200
while the process serves) and path/ready (200 while an upstream is up,
503 before they are connected, when none is, or after SIGTERM), on the
MCP listener or on addr; -drain d goes on serving HTTP for d after
SIGTERM. See docs/gateway.md for the configuration file and the endpoints.

Flags:
`

// gatewayMain parses the gateway command's flags, reads the configuration
// with the plugins of gatewayPlugins (or makes one of the flags' upstream),
// applies the flags over it, and checks, explains or serves it with
// package gateway.
func gatewayMain(args []string, sio stdio) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	var (
		configPath = fs.String("config", "", "the configuration file (YAML)")
		check      = fs.Bool("check", false, "check the configuration and exit, without serving or starting upstreams")
		explain    = fs.String("explain", "", "print the ordered hook plan of `flow` for every entity, and exit")
		command    = fs.String("command", "", "one upstream: the command to run over stdio (split like a shell would, without one)")
		url        = fs.String("url", "", "one upstream: its streamable HTTP URL")
		tokenEnv   = fs.String("token-env", "", "with -url: the environment variable holding the upstream's bearer token")
		prefix     = fs.String("prefix", "", "one upstream: prefix for its tool and prompt names")
		upName     = fs.String("name", "upstream", "one upstream: its `name` in errors, logs and health")
		httpAddr   = fs.String("http", "", "serve streamable HTTP on `addr` (overrides the configuration)")
		stdioFlag  = fs.Bool("stdio", false, "serve over stdio (overrides the configuration's http, stateless and drain)")
		stateless  = fs.Bool("stateless", false, "with -http: stateless streamable HTTP")
		healthPath = fs.String("health", "", "serve health endpoints under `path`: path/live and path/ready (overrides the configuration)")
		healthAddr = fs.String("health-addr", "", "serve the health endpoints on a listener of their own at `addr`, under /health unless -health says (overrides the configuration)")
		drain      = fs.Duration("drain", 0, "after SIGTERM, go on serving HTTP for `duration` with readiness failing, then shut down (overrides the configuration)")
		sessionTO  = fs.Duration("session-timeout", gateway.DefaultSessionTimeout, "close a client's HTTP session after `duration` without a request from it; 0 never (overrides the configuration)")
		verbose    = fs.Bool("v", false, "log at debug level (overrides the configuration)")
		logFormat  = fs.String("log-format", "", "log as `text` or json (overrides the configuration)")
	)
	fs.Usage = func() {
		io.WriteString(sio.err, gatewayUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(sio.err, "hookflow gateway: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, c := range []struct {
		a, b bool
		msg  string
	}{
		{*check, *explain != "", "-check and -explain exclude each other: give one"},
		{*httpAddr != "", *stdioFlag, "give -http or -stdio, not both"},
		{set["stateless"] && *stateless, *stdioFlag, "-stateless is for streamable HTTP (-http), not -stdio"},
		{set["drain"] && *drain > 0, *stdioFlag, "-drain is for streamable HTTP (-http): over stdio there is nothing to drain"},
		{set["session-timeout"], *stdioFlag, "-session-timeout is for streamable HTTP (-http): over stdio the client's session ends with its connection"},
	} {
		if c.a && c.b {
			fmt.Fprintf(sio.err, "hookflow gateway: %s\n", c.msg)
			return exitUsage
		}
	}
	one := *command != "" || *url != ""
	if (*configPath == "") == !one || (*command != "" && *url != "") {
		fmt.Fprintln(sio.err, "hookflow gateway: give -config, or one upstream with -command or -url")
		fs.Usage()
		return exitUsage
	}
	var cfg *gateway.Config
	if one {
		u, err := oneUpstream(*upName, *command, *url, *tokenEnv, *prefix)
		if err != nil {
			fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
			return exitUsage
		}
		if len(u.Command) > 0 {
			if err := u.CheckHost(); err != nil {
				fmt.Fprintf(sio.err, "hookflow gateway: -command: %v\n", err)
				return exitFailed
			}
		}
		cfg = &gateway.Config{Name: gateway.DefaultName, Serve: gateway.ServeConfig{SessionTimeout: gateway.DefaultSessionTimeout}, Upstreams: []gateway.UpstreamConfig{{Upstream: u}}}
	} else {
		var err error
		if cfg, err = gateway.ReadConfig(*configPath, gateway.LoadOptions{Plugins: gatewayPlugins()}); err != nil {
			if errors.As(err, new(*os.PathError)) {
				// The file could not be read: no position to give.
				fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
			} else {
				fmt.Fprintln(sio.err, err)
			}
			return exitFailed
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "http":
			cfg.Serve.HTTP, cfg.Serve.Stdio = *httpAddr, false
		case "stdio":
			// Over stdio the file's HTTP settings have nothing to
			// apply to.
			if cfg.Serve.Stdio = *stdioFlag; *stdioFlag {
				cfg.Serve.HTTP, cfg.Serve.Stateless, cfg.Serve.Drain = "", false, 0
			}
		case "stateless":
			cfg.Serve.Stateless = *stateless
		case "health":
			cfg.Serve.Health = *healthPath
		case "session-timeout":
			cfg.Serve.SessionTimeout = *sessionTO
		case "drain":
			cfg.Serve.Drain = *drain
		case "health-addr":
			cfg.Serve.HealthAddr = *healthAddr
		}
	})
	var flagErr error
	switch {
	case set["stateless"] && *stateless && cfg.Serve.Stdio:
		flagErr = errors.New("-stateless is for streamable HTTP, and the configuration serves stdio: give -http addr too")
	case set["drain"] && *drain > 0 && cfg.Serve.Stdio:
		flagErr = errors.New("-drain is for streamable HTTP, and the configuration serves stdio (nothing to drain): give -http addr too")
	}
	// A value a flag gave is reported with the flag's name.
	if j, ok := cfg.Serve.Validate().(interface{ Unwrap() []error }); ok {
		for _, err := range j.Unwrap() {
			var fe *flows.Error
			if !errors.As(err, &fe) {
				continue
			}
			if flag := strings.ReplaceAll(fe.Field, "_", "-"); set[flag] {
				flagErr = fmt.Errorf("-%s: %s", flag, fe.Msg)
			}
		}
	}
	if flagErr != nil {
		fmt.Fprintf(sio.err, "hookflow gateway: %v\n", flagErr)
		return exitUsage
	}
	switch *logFormat {
	case "":
	case "text", "json":
		cfg.Log.Format = *logFormat
	default:
		fmt.Fprintf(sio.err, "hookflow gateway: -log-format: want text or json, got %q\n", *logFormat)
		return exitUsage
	}
	if *check {
		if err := gateway.Check(cfg); err != nil {
			printError(sio.err, err)
			return exitFailed
		}
		fmt.Fprintf(sio.out, "%s: ok (%d upstreams)\n", cmpOr(*configPath, "flags"), len(cfg.Upstreams))
		return exitOK
	}
	logger := gatewayLogger(sio.err, cfg.Log, *verbose, *explain != "")
	if *explain != "" {
		flow, err := flows.Parse(*explain)
		if err != nil {
			fmt.Fprintf(sio.err, "hookflow gateway: -explain: %v\n", err)
			return exitUsage
		}
		if err := gateway.Explain(sio.out, cfg, flow, gateway.ServeOptions{Logger: logger}); err != nil {
			printError(sio.err, err)
			return exitFailed
		}
		return exitOK
	}
	if !cfg.Serve.Stdio && cfg.Serve.HTTP == "" {
		fmt.Fprintln(sio.err, "hookflow gateway: nothing to serve: set serve.http or serve.stdio, or give -http or -stdio")
		return exitUsage
	}
	if v := tuneGC(os.Getenv); v != "" {
		logger.Debug("hookflow gateway: garbage collector target from the environment", slog.String("GOGC", v))
	} else {
		logger.Debug("hookflow gateway: garbage collector target", slog.Int("GOGC", gatewayGCPercent))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := gateway.Serve(ctx, cfg, gateway.ServeOptions{Logger: logger, Hurry: secondSignal(ctx)}); err != nil {
		printError(sio.err, err)
		return exitFailed
	}
	return exitOK
}

// secondSignal returns a channel closed at the first SIGTERM or
// interrupt after ctx is done: the one that ends a drain early.
func secondSignal(ctx context.Context) <-chan struct{} {
	hurry := make(chan struct{})
	go func() {
		<-ctx.Done()
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		<-again
		signal.Stop(again)
		close(hurry)
	}()
	return hurry
}

// gatewayLogger returns the command's logger, writing to w as text or
// JSON lines: at the configured level, else info (warn with -explain,
// whose output is the plan), debug with -v.
func gatewayLogger(w io.Writer, l gateway.LogConfig, verbose, explain bool) *slog.Logger {
	switch {
	case verbose:
		l.Level = new(slog.Level)
		*l.Level = slog.LevelDebug
	case l.Level == nil && explain:
		l.Level = new(slog.Level)
		*l.Level = slog.LevelWarn
	}
	return l.Logger(w)
}

// printError prints err for the operator, a line for each error it
// joins, each after "hookflow gateway: ": a hookflow error about the
// configuration of a plugin loses the "hookflow: invalid: " its Error
// starts with, which says nothing more than "hookflow gateway: " does.
func printError(w io.Writer, err error) {
	for _, line := range strings.Split(configMessage(err), "\n") {
		fmt.Fprintf(w, "hookflow gateway: %s\n", line)
	}
}

// configMessage renders err as printError prints it, lines joined.
func configMessage(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range j.Unwrap() {
			lines = append(lines, configMessage(e))
		}
		return strings.Join(lines, "\n")
	}
	e, ok := err.(*flows.Error)
	if !ok || e.Code != flows.CodeInvalid || e.Flow != "" || e.Hook != "" || e.Step != "" {
		return err.Error()
	}
	switch {
	case e.Msg != "" && e.Err != nil:
		return e.Msg + ": " + configMessage(e.Err)
	case e.Err != nil:
		return configMessage(e.Err)
	case e.Msg != "":
		return e.Msg
	}
	return err.Error()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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

// splitCommand splits a command line into words: spaces separate words,
// single or double quotes keep them together. There is no shell.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("-command: unterminated quote in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("-command: empty")
	}
	return words, nil
}

// gatewayPlugins lists the plugins a gateway configuration file can turn
// on by their keys under plugins, each with its constructor: the gateway
// decodes a plugin's section into its Config and builds it with New. The
// list is explicit (no registration at init): a plugin is configurable
// from a file when it is listed here.
func gatewayPlugins() []gateway.PluginSpec {
	return []gateway.PluginSpec{
		gateway.Plugin("auth", auth.New),
		gateway.Plugin("ratelimit", ratelimit.New),
		gateway.Plugin("cache", cache.New),
		gateway.Plugin("audit", audit.New),
		gateway.Plugin("intercept", intercept.New),
		gateway.Plugin("sessiongate", sessiongate.New),
		gateway.Plugin("guidance", guidance.New),
		gateway.Plugin("otel", otel.New),
		gateway.Plugin("command", commandhook.New),
		gateway.Plugin("declared", declared.New),
		gateway.Plugin("middleware", middleware.New),
		gateway.Plugin("console", console.New),
	}
}
