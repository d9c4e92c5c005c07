package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/ratelimit"
	"github.com/hookflow/hookflow/stages"
)

func gatewayCommand() command {
	return command{
		name:    "gateway",
		summary: "serve upstream MCP servers through hookflow's flows, hooks and plugins",
		run:     runGateway,
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

func runGateway(args []string, sio stdio) int {
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
		sessionTO  = fs.Duration("session-timeout", defaultSessionTimeout, "close a client's HTTP session after `duration` without a request from it; 0 never (overrides the configuration)")
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
	var cfg *gatewayConfig
	if one {
		u, err := oneUpstream(*upName, *command, *url, *tokenEnv, *prefix)
		if err != nil {
			fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
			return exitUsage
		}
		if len(u.Command) > 0 {
			if err := lookProgram(u.Command[0], ""); err != nil {
				fmt.Fprintf(sio.err, "hookflow gateway: -command: %v\n", err)
				return exitFailed
			}
		}
		cfg = &gatewayConfig{Name: "hookflow-gateway", Serve: serveConfig{SessionTimeout: defaultSessionTimeout}, Upstreams: []upstreamConfig{{Upstream: u}}}
	} else {
		var err error
		if cfg, err = readGatewayConfig(*configPath); err != nil {
			if errors.As(err, new(*os.PathError)) {
				// The file could not be read: no position to give.
				fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
			} else {
				fmt.Fprintln(sio.err, err)
			}
			return exitFailed
		}
	}
	var flagErr error
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
			if err := checkHealthPath(*healthPath); err != nil {
				flagErr = fmt.Errorf("-health: %v", err)
			}
		case "session-timeout":
			cfg.Serve.SessionTimeout = *sessionTO
			if *sessionTO < 0 {
				flagErr = fmt.Errorf("-session-timeout: want a duration such as 30m, got %v", *sessionTO)
			}
		case "drain":
			cfg.Serve.Drain = *drain
			if *drain < 0 {
				flagErr = fmt.Errorf("-drain: want a duration such as 5s, got %v", *drain)
			}
		case "health-addr":
			cfg.Serve.HealthAddr = *healthAddr
			if err := checkAddr(*healthAddr); err != nil {
				flagErr = fmt.Errorf("-health-addr: %v", err)
			}
		}
	})
	switch {
	case flagErr != nil:
	case set["stateless"] && *stateless && cfg.Serve.Stdio:
		flagErr = errors.New("-stateless is for streamable HTTP, and the configuration serves stdio: give -http addr too")
	case set["drain"] && *drain > 0 && cfg.Serve.Stdio:
		flagErr = errors.New("-drain is for streamable HTTP, and the configuration serves stdio (nothing to drain): give -http addr too")
	}
	if flagErr != nil {
		fmt.Fprintf(sio.err, "hookflow gateway: %v\n", flagErr)
		return exitUsage
	}
	if err := checkServe(cfg.Serve); err != nil && *explain == "" {
		fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
		return exitFailed
	}
	switch *logFormat {
	case "":
	case "text", "json":
		cfg.Log.JSON = *logFormat == "json"
	default:
		fmt.Fprintf(sio.err, "hookflow gateway: -log-format: want text or json, got %q\n", *logFormat)
		return exitUsage
	}
	if *check {
		if err := checkGateway(cfg); err != nil {
			printError(sio.err, err)
			return exitFailed
		}
		fmt.Fprintf(sio.out, "%s: ok (%d upstreams)\n", cmpOr(*configPath, "flags"), len(cfg.Upstreams))
		return exitOK
	}
	var flow flows.ID
	if *explain != "" {
		id, err := flows.Parse(*explain)
		if err != nil {
			fmt.Fprintf(sio.err, "hookflow gateway: -explain: %v\n", err)
			return exitUsage
		}
		flow = id
	}
	logger := newGatewayLogger(sio.err, cfg.Log, *verbose, *explain != "")
	var health *healthEndpoints
	if *explain == "" && (cfg.Serve.Health != "" || cfg.Serve.HealthAddr != "") {
		// A listener of their own opens first, so that probes see the
		// process live and not ready while the upstreams connect.
		health = newHealthEndpoints(cfg.Serve.Health)
		if cfg.Serve.HealthAddr != "" {
			stop, err := health.listen(cfg.Serve.HealthAddr, logger)
			if err != nil {
				fmt.Fprintf(sio.err, "hookflow gateway: health: %v\n", err)
				return exitFailed
			}
			defer stop()
		}
	}
	g, err := buildGateway(cfg, logger)
	if err != nil {
		printError(sio.err, err)
		return exitFailed
	}
	defer g.close()
	if health != nil {
		health.set(g.gateways...)
	}
	if *explain != "" {
		if err := g.explain(sio.out, flow); err != nil {
			fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
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
	if err := g.serve(ctx, cfg.Serve, logger, health); err != nil {
		fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
		return exitFailed
	}
	return exitOK
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
// from a file when it is listed here. auth, ratelimit and intercept are
// decoded by gatewayConfig until their Configs carry yaml tags and
// Validate.
func gatewayPlugins() []gateway.PluginSpec {
	return []gateway.PluginSpec{
		gateway.Plugin("cache", cache.New),
		gateway.Plugin("audit", audit.New),
	}
}

// builtGateway is a gateway server built from a configuration, started.
type builtGateway struct {
	srv      *framework.Server
	gateways []*gateway.Gateway
	auth     *auth.Plugin
	// plugins are the plugins built, which end with the gateway: an
	// intercept plugin's hosts' commands, an audit plugin's queue.
	plugins []framework.Plugin
}

func (g *builtGateway) close() {
	for _, gw := range g.gateways {
		gw.Close()
	}
	for _, p := range g.plugins {
		switch c := p.(type) {
		case interface{ Close(context.Context) error }:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = c.Close(ctx)
			cancel()
		case interface{ Close() error }:
			_ = c.Close()
		}
	}
}

// checkGateway builds the configuration's plugins and attaches them to a
// server without upstreams, so their own checks run; nothing is served,
// no upstream or interceptor host is started or connected, and no file is
// written: the audit plugins log to nowhere (reading the configuration
// checked their files).
func checkGateway(cfg *gatewayConfig) error {
	g := &builtGateway{srv: framework.NewServer(&mcp.Implementation{Name: cfg.Name, Version: "1"}, nil)}
	defer g.close()
	if err := g.addPlugins(g.srv, offline(cfg.Plugins), slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	for _, a := range cfg.Apps {
		app, err := g.srv.App(a.Name)
		if err != nil {
			return err
		}
		if err := g.addPlugins(app, offline(a.Plugins), slog.New(slog.DiscardHandler)); err != nil {
			return err
		}
	}
	return g.srv.Start()
}

// offline returns p without the plugins that reading the configuration
// checked (their Validate ran): building them may open files, and the
// intercept plugin connects to its hosts when attached.
func offline(p pluginsConfig) pluginsConfig {
	p.Listed = nil
	p.Intercept = nil
	return p
}

// buildGateway builds and starts the server cfg describes: its plugins,
// apps and gateways; the upstreams are connected.
func buildGateway(cfg *gatewayConfig, logger *slog.Logger) (*builtGateway, error) {
	g := &builtGateway{}
	g.srv = framework.NewServer(&mcp.Implementation{Name: cfg.Name, Version: "1"}, &framework.Options{
		Logger:      logger,
		Subscribe:   g.subscribe,
		Unsubscribe: g.unsubscribe,
	})
	if err := g.addPlugins(g.srv, cfg.Plugins, logger); err != nil {
		g.close()
		return nil, err
	}
	mount := func(r interface {
		Use(...framework.Plugin) error
	}, app string) error {
		var ups []gateway.Upstream
		for _, u := range cfg.Upstreams {
			if u.App == app {
				ups = append(ups, u.Upstream)
			}
		}
		if len(ups) == 0 {
			return nil
		}
		gw := gateway.New(ups...)
		g.gateways = append(g.gateways, gw)
		return r.Use(gw)
	}
	if err := mount(g.srv, ""); err != nil {
		g.close()
		return nil, err
	}
	for _, a := range cfg.Apps {
		app, err := g.srv.App(a.Name)
		if err == nil {
			err = g.addPlugins(app, a.Plugins, logger)
		}
		if err == nil {
			err = mount(app, a.Name)
		}
		if err != nil {
			g.close()
			return nil, err
		}
	}
	if err := g.srv.Start(); err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

func (g *builtGateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	for _, gw := range g.gateways {
		if err := gw.Subscribe(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

func (g *builtGateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	for _, gw := range g.gateways {
		if err := gw.Unsubscribe(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

// user is what the server or an app's plugins are added to.
type user interface {
	Use(...framework.Plugin) error
	Hook(...flows.Hook) error
}

// addPlugins adds the plugins p configures to r, in the order auth,
// ratelimit, cache, audit, intercept (their priorities order their hooks
// whatever the order). The intercept plugin records its decisions on
// the run, where every audit plugin auditing the run (the app's, the
// server's) reads them.
func (g *builtGateway) addPlugins(r user, p pluginsConfig, logger *slog.Logger) error {
	var ps []framework.Plugin
	if p.Auth != nil {
		a := auth.New(authConfigFor(p.Auth))
		if g.auth == nil {
			g.auth = a
		}
		ps = append(ps, a)
	}
	if p.RateLimit != nil {
		ps = append(ps, ratelimit.New(ratelimit.Config{PerSession: p.RateLimit.PerSession, PerPrincipal: p.RateLimit.PerPrincipal,
			PerTool: p.RateLimit.PerTool, Tools: p.RateLimit.Tools}))
	}
	for _, l := range p.Listed {
		lp, err := l.spec.New(l.cfg)
		if err != nil {
			return err
		}
		g.plugins = append(g.plugins, lp)
		ps = append(ps, lp)
	}
	if p.Intercept != nil {
		ip := intercept.New(p.Intercept.pluginConfig())
		g.plugins = append(g.plugins, ip)
		ps = append(ps, ip)
	}
	if err := r.Use(ps...); err != nil {
		return err
	}
	if p.Noop {
		return r.Hook(noopHooks()...)
	}
	return nil
}

// noopHooks are hooks that do nothing, one at every stage of every flow.
func noopHooks() []flows.Hook {
	var hs []flows.Hook
	for _, f := range flows.All() {
		for _, st := range stages.All() {
			hs = append(hs, flows.Hook{Flow: f.ID, Stage: st, Name: "noop", Fn: func(*flows.Context) error { return nil }})
		}
	}
	return hs
}

// authConfigFor builds the auth plugin's configuration: a verifier of the
// configured static tokens.
func authConfigFor(c *authConfig) auth.Config {
	cfg := auth.Config{ToolScopes: c.ToolScopes, Conceal: c.Conceal, ResourceMetadataURL: c.ResourceMetadataURL}
	if c.AllowAnonymous {
		cfg.Unauthenticated = auth.AllowAll
	}
	tokens := slices.Clone(c.Tokens)
	cfg.Verifier = func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		for _, t := range tokens {
			if subtle.ConstantTimeCompare([]byte(t.Token), []byte(token)) == 1 {
				return &sdkauth.TokenInfo{UserID: t.User, Scopes: t.Scopes, Expiration: time.Now().Add(time.Hour)}, nil
			}
		}
		return nil, sdkauth.ErrInvalidToken
	}
	return cfg
}

// explain prints the plan of flow for every entity it applies to.
func (g *builtGateway) explain(w io.Writer, flow flows.ID) error {
	info := flow.Info()
	if info.Entity == flows.EntityNone {
		text, err := g.srv.Explain(flow, "")
		io.WriteString(w, text)
		return err
	}
	for i, name := range g.entities(info.Entity) {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		text, err := g.srv.Explain(flow, name)
		if err != nil {
			return err
		}
		io.WriteString(w, text)
	}
	return nil
}

// entities lists the names of the mounted entities of kind.
func (g *builtGateway) entities(kind flows.EntityKind) []string {
	var names []string
	for _, gw := range g.gateways {
		names = append(names, gw.Names(kind)...)
	}
	slices.Sort(names)
	return names
}

// serve serves the gateway until ctx is done, with the health endpoints
// on the MCP listener when health is not nil and has no listener of its
// own.
func (g *builtGateway) serve(ctx context.Context, s serveConfig, logger *slog.Logger, health *healthEndpoints) error {
	if s.Stdio {
		return g.srv.Run(ctx, &mcp.StdioTransport{})
	}
	opts := &mcp.StreamableHTTPOptions{Stateless: s.Stateless, SessionTimeout: s.SessionTimeout}
	var h http.Handler
	var err error
	if g.auth != nil {
		h, err = g.auth.Handler(g.srv, opts)
	} else {
		h, err = g.srv.HTTPHandler(opts)
	}
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.HTTP)
	if err != nil {
		return err
	}
	if health != nil && s.HealthAddr == "" {
		// The endpoints come before auth: probes carry no token.
		h = health.wrap(h)
		health.logServing(logger, ln.Addr())
	}
	logger.Info("hookflow gateway: serving streamable HTTP", slog.String("addr", ln.Addr().String()), slog.Bool("stateless", s.Stateless))
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if health != nil {
		health.stopping.Store(true)
	}
	if s.Drain > 0 {
		drainFor(s.Drain, logger)
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drainFor goes on serving for d, or until a second SIGTERM or interrupt,
// while readiness fails: the load balancers that probe it stop sending it
// requests, and the requests they sent meanwhile are served.
func drainFor(d time.Duration, logger *slog.Logger) {
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	logger.Info("hookflow gateway: draining: readiness fails, requests are still served", slog.Duration("drain", d))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		logger.Info("hookflow gateway: drained; shutting down")
	case <-again:
		logger.Info("hookflow gateway: a second signal; shutting down without draining further")
	}
}

// healthEndpoints serves the liveness and readiness endpoints under a path
// prefix: prefix+"/live" answers 200 while the process serves HTTP,
// prefix+"/ready" is [gateway.HealthHandler] of the gateways, or 503
// "stopping" once the gateway is shutting down.
type healthEndpoints struct {
	live, ready string
	// readiness is the gateways' health handler, set once they are built.
	readiness atomic.Pointer[http.Handler]
	// stopping is set at SIGTERM or an interrupt.
	stopping atomic.Bool
}

// newHealthEndpoints returns the endpoints under prefix ("" for /health),
// not ready until set is called.
func newHealthEndpoints(prefix string) *healthEndpoints {
	prefix = strings.TrimSuffix(cmpOr(prefix, "/health"), "/")
	e := &healthEndpoints{live: prefix + "/live", ready: prefix + "/ready"}
	// A gateway never attached: 503, "starting".
	e.set(gateway.New())
	return e
}

// set makes readiness report on gws.
func (e *healthEndpoints) set(gws ...*gateway.Gateway) {
	h := gateway.HealthHandler(gws...)
	e.readiness.Store(&h)
}

// wrap returns a handler that serves the endpoints, and every other path
// with next (not found when next is nil).
func (e *healthEndpoints) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == e.live:
			serveStatus(w, r, http.StatusOK, "live")
		case r.URL.Path == e.ready && e.stopping.Load():
			serveStatus(w, r, http.StatusServiceUnavailable, "stopping")
		case r.URL.Path == e.ready:
			(*e.readiness.Load()).ServeHTTP(w, r)
		case next != nil:
			next.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// listen serves the endpoints on a listener of their own at addr, until
// stop is called.
func (e *healthEndpoints) listen(addr string, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e.logServing(logger, ln.Addr())
	hs := &http.Server{Handler: e.wrap(nil), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("hookflow gateway: serving health", slog.Any("err", err))
		}
	}()
	return func() { hs.Close() }, nil
}

func (e *healthEndpoints) logServing(logger *slog.Logger, addr net.Addr) {
	logger.Info("hookflow gateway: serving health", slog.String("addr", addr.String()), slog.String("live", e.live), slog.String("ready", e.ready))
}

// serveStatus answers a probe with code and {"status":status}.
func serveStatus(w http.ResponseWriter, r *http.Request, code int, status string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		fmt.Fprintf(w, "{\"status\":%q}\n", status)
	}
}

// newGatewayLogger returns the command's logger, writing to w as text or
// JSON lines: at the configured level, else info (warn with -explain,
// whose output is the plan), debug with -v.
func newGatewayLogger(w io.Writer, l logConfig, verbose, explain bool) *slog.Logger {
	level := slog.LevelInfo
	switch {
	case verbose:
		level = slog.LevelDebug
	case l.LevelSet:
		level = l.Level
	case explain:
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	if l.JSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
