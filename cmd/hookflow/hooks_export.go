package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/agent"
)

func exportVerb() hooksVerb {
	return hooksVerb{
		name:    "export",
		summary: "write a coding agent's hook settings for a server's declared hooks (SEP-2282)",
		run:     runExport,
	}
}

const exportUsage = `usage: hookflow hooks export --agent claude|codex|gemini --server <url or command> [flags]

Connects to the MCP server as a client of the agent's events, reads the hooks
it declares (SEP-2282, experimental.hooks) and writes the agent's hook
settings: at each hook event that carries a declared event, the agent runs
"hookflow hooks emit" with the same server, which prints the declared text on
the channel the agent shows to the model. Declarations of events no hook of
the agent can show to the model (session_end; pre_tool_use for gemini) are
not exported.

Without -o the settings are printed. With -o they are merged into the file:
its other keys and hooks are kept, and the hooks a previous export wrote for
the same command are replaced. Claude Code's hooks are written in its exec
form ("command" the hookflow binary, "args" the rest), which runs no shell;
Codex's and Gemini CLI's as one command line. The agents read them from:

  claude  ~/.claude/settings.json, or .claude/settings.json in a project
  codex   ~/.codex/hooks.json, or .codex/hooks.json in a project
  gemini  ~/.gemini/settings.json, or .gemini/settings.json in a project

Codex and Gemini CLI ask you to review new hooks before they run them.
Codex shows pre_tool_use text (PreToolUse additionalContext) from version
0.129.0 on; export says so when it writes that hook.

Flags:
`

func runExport(args []string, io stdio) int {
	fs := flag.NewFlagSet("hookflow hooks export", flag.ContinueOnError)
	fs.SetOutput(io.err)
	agentName := fs.String("agent", "", "the coding agent: "+strings.Join(agent.Names(), ", "))
	server := fs.String("server", "", "the MCP server: a streamable HTTP URL, or a command line that serves MCP on stdio")
	out := fs.String("o", "", "merge the settings into this file instead of printing them")
	bin := fs.String("bin", "hookflow", "how the agent runs hookflow (a name on its PATH or an absolute path)")
	var emit emitFlags
	emit.register(fs)
	fs.Usage = func() {
		fmt.Fprint(io.err, exportUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	a, err := exportArgs(fs, *agentName, *server)
	if err == nil {
		_, err = emit.check()
	}
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks export: %v\n", err)
		return exitUsage
	}
	hookName := ""
	if emit.name != "" {
		hookName = "hookflow-" + emit.name
	}

	argv := append([]string{*bin, "hooks", "emit", "--agent", a.String(), "--server", *server}, emit.args()...)
	settings, skipped, name, err := agent.Export(context.Background(), agent.ExportConfig{
		Agent: a, Server: *server, Command: agent.Quote(argv...), Argv: argv, Name: hookName, Timeout: emit.timeout + 5*time.Second, Stderr: io.err,
	})
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks export: %v\n", err)
		return exitFailed
	}
	for _, sk := range skipped {
		fmt.Fprintf(io.err, "hookflow hooks export: %s: declaration %d (%s) not exported: %s\n", name, sk.Index, sk.Declaration.Event, sk.Why)
	}
	for _, e := range declared.Events() {
		if hook, ok := a.HookEvent(e); ok && a.Since(e) != "" && len(settings.Hooks[hook]) > 0 {
			fmt.Fprintf(io.err, "hookflow hooks export: %s shows %s text to the model from version %s on; an older %s reports the %s hook as failed and goes on without it\n",
				a, e, a.Since(e), a, hook)
		}
	}
	if missing := notCarried(a); missing != "" {
		fmt.Fprintf(io.err, "hookflow hooks export: %s has no hook that shows text to the model at %s; the server was asked for its other events only\n", a, missing)
	}
	if len(settings.Hooks) == 0 {
		fmt.Fprintf(io.err, "hookflow hooks export: %s declares no hook %s can carry; nothing to write\n", name, a)
		return exitFailed
	}

	return writeExport(io, *out, a, name, settings)
}

// writeExport prints settings, the hooks of the server name for agent
// a, or merges them into the file out.
func writeExport(io stdio, out string, a agent.Agent, name string, settings agent.Settings) int {
	var existing []byte
	if out != "" {
		var err error
		existing, err = os.ReadFile(out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(io.err, "hookflow hooks export: %v\n", err)
			return exitFailed
		}
	}
	merged, err := agent.Merge(out, existing, settings)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks export: %v\n", err)
		return exitFailed
	}
	if out == "" {
		io.out.Write(merged)
		return exitOK
	}
	if err := os.WriteFile(out, merged, 0o644); err != nil {
		fmt.Fprintf(io.err, "hookflow hooks export: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(io.err, "hookflow hooks export: wrote %s hooks for %s to %s\n", a, name, out)
	return exitOK
}

// exportArgs checks the flags every verb of the agent bridge needs.
func exportArgs(fs *flag.FlagSet, agentName, server string) (agent.Agent, error) {
	if fs.NArg() > 0 {
		return 0, fmt.Errorf("unexpected argument %q (quote a server command line as one --server value)", fs.Arg(0))
	}
	if agentName == "" {
		return 0, fmt.Errorf("--agent is required (%s)", strings.Join(agent.Names(), ", "))
	}
	a, err := agent.Parse(agentName)
	if err != nil {
		return 0, fmt.Errorf("--agent: %v", err)
	}
	if server == "" {
		return 0, errors.New("--server is required: a streamable HTTP URL or a command line")
	}
	return a, nil
}

// notCarried lists the declared events no hook of a can show to the model.
func notCarried(a agent.Agent) string {
	var out []string
	for _, e := range declared.Events() {
		if _, ok := a.HookEvent(e); !ok {
			out = append(out, e.String())
		}
	}
	return strings.Join(out, ", ")
}
