package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	cmdhooks "github.com/hookflow/hookflow/plugins/command"
)

// storeFlags are the flags the trust-store verbs share: where the store is
// and, for reading a settings file, what the server's Config says of the
// project directory and the interpreters.
type storeFlags struct {
	store, dir, interpreters string
}

func (s *storeFlags) register(fs *flag.FlagSet, settings bool) {
	fs.StringVar(&s.store, "store", cmdhooks.DefaultTrustStore(), "the trust store's `file`")
	if settings {
		fs.StringVar(&s.dir, "dir", "", "the project `directory` (default: as the server has it, from the settings file's place)")
		fs.StringVar(&s.interpreters, "interpreters", strings.Join(cmdhooks.DefaultInterpreters, ","), "the allowed interpreters, comma-separated, as the server's Config.Interpreters")
	}
}

// config is the plugin configuration that reads settings as the server does.
func (s *storeFlags) config(settings string) cmdhooks.Config {
	return cmdhooks.Config{SettingsFile: settings, Dir: s.dir, TrustStore: s.store,
		Interpreters: strings.Split(s.interpreters, ",")}
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
