package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
	"github.com/hookflow/hookflow/plugins/cache"
	commandhook "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/gateway/host"
	"github.com/hookflow/hookflow/plugins/guidance"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/middleware"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/plugins/policy"
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
// package host.
func gatewayMain(args []string, sio stdio) int {
	f, code, ok := parseGatewayFlags(args, sio.err)
	if !ok {
		return code
	}
	cfg, code := f.config(sio.err)
	if cfg == nil {
		return code
	}
	if err := f.apply(cfg); err != nil {
		fmt.Fprintf(sio.err, "hookflow gateway: %v\n", err)
		return exitUsage
	}
	if f.check {
		for _, w := range cfg.Warnings {
			fmt.Fprintf(sio.err, "hookflow gateway: warning: %v\n", w)
		}
		if err := host.Check(cfg); err != nil {
			printError(sio.err, err)
			return exitFailed
		}
		fmt.Fprintf(sio.out, "%s: ok (%d upstreams)\n", cmpOr(f.configPath, "flags"), len(cfg.Upstreams))
		return exitOK
	}
	logger := gatewayLogger(sio.err, cfg.Log, f.verbose, f.explain != "")
	for _, w := range cfg.Warnings {
		logger.Warn("hookflow gateway: configuration", slog.String("warning", w.Error()))
	}
	if f.explain != "" {
		return gatewayExplain(sio, cfg, f.explain, logger)
	}
	return gatewayServe(sio, cfg, logger)
}

// gatewayServe serves cfg until SIGTERM or an interrupt.
func gatewayServe(sio stdio, cfg *host.Config, logger *slog.Logger) int {
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
	if err := host.Serve(ctx, cfg, host.ServeOptions{Logger: logger, Hurry: secondSignal(ctx)}); err != nil {
		printError(sio.err, err)
		return exitFailed
	}
	return exitOK
}

// gatewayExplain prints the hook plan of the flow named flow.
func gatewayExplain(sio stdio, cfg *host.Config, flow string, logger *slog.Logger) int {
	id, err := flows.Parse(flow)
	if err != nil {
		fmt.Fprintf(sio.err, "hookflow gateway: -explain: %v\n", err)
		return exitUsage
	}
	if err := host.Explain(sio.out, cfg, id, host.ServeOptions{Logger: logger}); err != nil {
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
func gatewayLogger(w io.Writer, l host.LogConfig, verbose, explain bool) *slog.Logger {
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
func gatewayPlugins() []host.PluginSpec {
	return []host.PluginSpec{
		host.Plugin("auth", oauth.NewPlugin),
		host.Plugin("policy", policy.New),
		host.Plugin("ratelimit", ratelimit.New),
		host.Plugin("cache", cache.New),
		host.Plugin("audit", audit.New),
		host.Plugin("intercept", intercept.New),
		host.Plugin("sessiongate", sessiongate.New),
		host.Plugin("guidance", guidance.New),
		host.Plugin("otel", otel.New),
		host.Plugin("command", commandhook.New),
		host.Plugin("declared", declared.New),
		host.Plugin("middleware", middleware.New),
		host.Plugin("console", console.New),
	}
}
