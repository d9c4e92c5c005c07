package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/hookflow/hookflow/flows"
	cmdhooks "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// storeFlags are the flags the trust-store verbs share: where the store is
// and, for reading a settings file, what the server's Config says of the
// project directory and the interpreters.
type storeFlags struct {
	store, dir, interpreters string
	// How the settings file is imported, as the server's configuration
	// imports it (command.Import).
	agent, shell, runners, sendArgs string
	lenient                         bool
}

func (s *storeFlags) register(fs *flag.FlagSet, settings bool) {
	fs.StringVar(&s.store, "store", trust.DefaultPath(), "the trust store's `file`")
	if settings {
		fs.StringVar(&s.dir, "dir", "", "the project `directory` (default: as the server has it, from the settings file's place)")
		fs.StringVar(&s.interpreters, "interpreters", strings.Join(cmdhooks.DefaultInterpreters, ","), "the allowed interpreters, comma-separated, as the server's Config.Interpreters")
		fs.StringVar(&s.agent, "agent", "", "the settings file's `agent` format: claude, codex, gemini or copilot (default: told from the file)")
		fs.StringVar(&s.shell, "shell", "", "the hooks that may run through a shell, comma-separated `names` or paths, as the import's shell")
		fs.StringVar(&s.sendArgs, "send-arguments", "", "the mcp_tool hooks that may send the call's data to their tool, comma-separated `names` or paths, as the import's send_arguments")
		fs.StringVar(&s.runners, "runners", "", "the runner `programs` the hooks may use, comma-separated, as the import's runners")
		fs.BoolVar(&s.lenient, "lenient", false, "skip bad entries with a warning, as a lenient import")
	}
}

// config is the plugin configuration that reads settings as the server
// does: a settings file, or a Claude Code plugin's directory. Its
// warnings (skipped entries, missing programs) go to warn.
func (s *storeFlags) config(settings string, warn io.Writer) (cmdhooks.Config, error) {
	imp := cmdhooks.Import{File: settings, Dir: s.dir, Lenient: s.lenient, Shell: list(s.shell), Runners: list(s.runners), SendArguments: list(s.sendArgs)}
	if fi, err := os.Stat(settings); err == nil && fi.IsDir() {
		imp.File, imp.Plugin = "", settings
	}
	if err := imp.Agent.UnmarshalText([]byte(s.agent)); err != nil {
		return cmdhooks.Config{}, fmt.Errorf("-agent: %s", flows.Reason(err))
	}
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	return cmdhooks.Config{Imports: []cmdhooks.Import{imp}, Dir: s.dir, TrustStore: s.store,
		Interpreters: strings.Split(s.interpreters, ","),
		Logger:       slog.New(slog.NewTextHandler(warn, &slog.HandlerOptions{ReplaceAttr: noTime}))}, nil
}

// list splits a comma-separated flag; "" is none.
func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// newFlags returns a flag set for "hookflow hooks <verb>" that prints its
// usage and errors to w.
func newFlags(verb, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hookflow hooks "+verb, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and returns the exit code to stop with, or -1 to
// go on.
func parseFlags(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	return -1
}

// short returns the first 16 hex digits of a SHA-256.
func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}
