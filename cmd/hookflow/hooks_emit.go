package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/hookflow/hookflow/plugins/declared/agent"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

func emitVerb() hooksVerb {
	return hooksVerb{
		name:    "emit",
		summary: "run as a coding agent's command hook: print a server's declared text for the agent's event",
		run:     runEmit,
	}
}

const emitUsage = `usage: hookflow hooks emit --agent claude|codex|gemini --server <url or command> [flags] < hook-input.json

Runs as one of the agent's command hooks, as "hookflow hooks export" wires it:
reads the agent's hook input (JSON) on standard input, connects to the MCP
server, fires the hooks it declares (SEP-2282) at the event the input
carries, and prints the agent's JSON output with the declared text where the
agent shows it to the model (additionalContext; after a turn, a one-time
refusal of the stop). With nothing to say it prints {}.

Exit status: 0 with JSON printed; 1 on any failure, usage errors included,
which the agents treat as a non-blocking error. Never 2, which would block
the agent's action.

Flags:
`

// emitFlags are the flags emit takes that export passes on.
type emitFlags struct {
	name, project, trust string
	maxBytes             int
	timeout              time.Duration
	verbose              bool
}

func (e *emitFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.name, "name", "", "the server's name in the text's labels (default: the name the server gives itself)")
	fs.StringVar(&e.project, "project", "", "{project_name} (default: the base name of the agent's working directory)")
	fs.StringVar(&e.trust, "trust", "trusted", `"trusted": required hooks are sent as important; "full": as required`)
	fs.IntVar(&e.maxBytes, "max-bytes", client.DefaultMaxBytes, "cap on the declared text of one event")
	fs.DurationVar(&e.timeout, "timeout", agent.DefaultTimeout, "bound on one run: connecting, reading the declarations, calling context tools")
	fs.BoolVar(&e.verbose, "v", false, "write the audit records, and a command server's standard error, to standard error")
}

// args returns the flags that differ from their defaults, for export to
// write into the emit command line.
func (e *emitFlags) args() []string {
	var out []string
	if e.name != "" {
		out = append(out, "--name", e.name)
	}
	if e.project != "" {
		out = append(out, "--project", e.project)
	}
	if e.trust != "trusted" {
		out = append(out, "--trust", e.trust)
	}
	if e.maxBytes != client.DefaultMaxBytes {
		out = append(out, "--max-bytes", strconv.Itoa(e.maxBytes))
	}
	if e.timeout != agent.DefaultTimeout {
		out = append(out, "--timeout", e.timeout.String())
	}
	return out
}

func (e *emitFlags) check() (client.Trust, error) {
	if e.maxBytes <= 0 {
		return 0, fmt.Errorf("--max-bytes must be positive, got %d", e.maxBytes)
	}
	if e.timeout <= 0 {
		return 0, fmt.Errorf("--timeout must be positive, got %v", e.timeout)
	}
	switch e.trust {
	case "trusted":
		return client.Trusted, nil
	case "full":
		return client.FullyTrusted, nil
	}
	return 0, fmt.Errorf(`--trust: want "trusted" or "full", got %q%s`, e.trust, didYouMean(e.trust, []string{"trusted", "full"}))
}

func runEmit(args []string, io stdio) int {
	fs := flag.NewFlagSet("hookflow hooks emit", flag.ContinueOnError)
	fs.SetOutput(io.err)
	agentName := fs.String("agent", "", "the coding agent: claude, codex, gemini")
	server := fs.String("server", "", "the MCP server: a streamable HTTP URL, or a command line that serves MCP on stdio")
	var e emitFlags
	e.register(fs)
	fs.Usage = func() {
		fmt.Fprint(io.err, emitUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitFailed // never 2: the agent would block its action
	}
	a, err := exportArgs(fs, *agentName, *server)
	var trust client.Trust
	if err == nil {
		trust, err = e.check()
	}
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks emit: %v\n", err)
		return exitFailed
	}
	cfg := agent.EmitConfig{Agent: a, Server: *server, Name: e.name, Project: e.project, Trust: trust, MaxBytes: e.maxBytes, Timeout: e.timeout}
	if e.verbose {
		cfg.Stderr = io.err
		cfg.Audit = func(r client.Record) { fmt.Fprintf(io.err, "hookflow hooks emit: %s\n", r) }
	}
	if err := agent.Emit(context.Background(), cfg, io.in, io.out); err != nil {
		fmt.Fprintf(io.err, "hookflow hooks emit: %v\n", err)
		return exitFailed
	}
	return exitOK
}
